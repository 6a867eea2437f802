// A TCP forwarder on 127.0.0.1 in front of the emulator that can go away (connections are
// refused: nothing listens) and come back on the same port: "the service went away for a
// while". Only the fault suite uses it.
import * as net from 'node:net';

export class Switchboard {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  private portValue = 0;

  private constructor(private readonly targetPort: number) {}

  /** Starts forwarding 127.0.0.1:<ephemeral> to 127.0.0.1:targetPort. */
  static async start(targetPort: number): Promise<Switchboard> {
    const s = new Switchboard(targetPort);
    await s.up();
    return s;
  }

  get port(): number {
    return this.portValue;
  }

  get isUp(): boolean {
    return this.server !== undefined;
  }

  /** Listens again (on the port it had, once it had one). */
  async up(): Promise<void> {
    if (this.server) {
      return;
    }
    const server = net.createServer((client) => {
      this.sockets.add(client);
      const upstream = net.connect(this.targetPort, '127.0.0.1');
      this.sockets.add(upstream);
      const drop = (): void => {
        client.destroy();
        upstream.destroy();
        this.sockets.delete(client);
        this.sockets.delete(upstream);
      };
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.portValue, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.portValue = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  /** Stops listening and cuts every open connection: new connections are refused. */
  async down(): Promise<void> {
    const server = this.server;
    if (!server) {
      return;
    }
    this.server = undefined;
    for (const socket of this.sockets) {
      socket.destroy();
    }
    this.sockets.clear();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  close(): Promise<void> {
    return this.down();
  }
}
