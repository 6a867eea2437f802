/** Two sockets joined both ways, tracked so a test server can close them all; one closing closes both. */
import type * as net from 'node:net';

export function relay(client: net.Socket, upstream: net.Socket, sockets: Set<net.Socket>): void {
  for (const s of [client, upstream]) {
    sockets.add(s);
    s.on('error', () => undefined).on('close', () => {
      sockets.delete(s);
      client.destroy();
      upstream.destroy();
    });
  }
  client.pipe(upstream);
  upstream.pipe(client);
}
