// A real company proxy for the network scenarios: Debian's squid (installed by
// scripts/setup-test-env.sh), started on 127.0.0.1 with its own config in a temporary folder,
// optionally with basic authentication (squid's basic_ncsa_auth helper and an htpasswd file
// made with openssl). In front of it a recorder keeps every byte the client sent the proxy,
// so a scenario can assert on what the proxy saw (the CONNECT line, Proxy-Authorization)
// and did not see (the bearer token), and squid's access log says what it let through.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { relay } from '../../support/relay';

const SQUID = '/usr/sbin/squid';
const NCSA = '/usr/lib/squid/basic_ncsa_auth';

export interface Squid {
  /** `http://127.0.0.1:<port>`: the recorder in front of squid. */
  url: string;
  /** Everything clients sent towards the proxy (latin1). */
  seen(): string;
  /** CONNECT targets in what clients sent, e.g. `127.0.0.1:4431`. */
  connects(): string[];
  /** squid's access log lines (e.g. `TCP_TUNNEL/200 ... CONNECT 127.0.0.1:4431`, `TCP_DENIED/407`). */
  accessLog(): string[];
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', () => resolve()));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

function config(dir: string, port: number, auth: boolean): string {
  return [
    `http_port 127.0.0.1:${port}`,
    'pid_filename none',
    'cache deny all',
    `access_log stdio:${dir}/access.log`,
    `cache_log ${dir}/cache.log`,
    `coredump_dir ${dir}`,
    'pinger_enable off',
    'netdb_filename none',
    'shutdown_lifetime 0 seconds',
    'via off',
    ...(auth ? [
      `auth_param basic program ${NCSA} ${dir}/passwd`,
      'auth_param basic realm agent-runs-test',
      'acl authed proxy_auth REQUIRED',
      'http_access deny !authed',
    ] : []),
    'http_access allow localhost',
    'http_access deny all',
    '',
  ].join('\n');
}

/** Resolves once squid accepts connections on `port`; rejects when it exits first. */
async function ready(child: ChildProcess, dir: string, port: number): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`squid exited (${child.exitCode}): ${fs.readFileSync(path.join(dir, 'cache.log'), 'utf8').slice(-500)}`);
    }
    const log = fs.existsSync(path.join(dir, 'cache.log')) ? fs.readFileSync(path.join(dir, 'cache.log'), 'utf8') : '';
    if (log.includes(`local=127.0.0.1:${port}`)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('squid did not start within 15 s');
}

async function startRecorder(squidPort: number, chunks: Buffer[]): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(squidPort, '127.0.0.1');
    client.on('data', (d: Buffer) => chunks.push(Buffer.from(d)));
    relay(client, upstream, sockets);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}

/** Starts squid; with `auth` ('user:password') it answers 407 to requests without those credentials. */
export async function startSquid(opts: { auth?: string } = {}): Promise<Squid> {
  if (!fs.existsSync(SQUID)) {
    throw new Error(`${SQUID} is missing: run npm run test:setup (it installs Debian's squid)`);
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-runs-squid-'));
  // squid started as root runs as the 'proxy' user: it must read the config and write the logs.
  fs.chmodSync(dir, 0o777);
  if (opts.auth) {
    const [user, password] = opts.auth.split(':');
    const hash = execFileSync('openssl', ['passwd', '-apr1', password], { encoding: 'utf8' }).trim();
    fs.writeFileSync(path.join(dir, 'passwd'), `${user}:${hash}\n`, { mode: 0o644 });
  }
  let child: ChildProcess | undefined;
  let port = 0;
  // A port released by freePort() can be taken by someone else before squid binds it: then
  // squid exits at once and another port is tried (setup only, never a test's outcome).
  for (let attempt = 0; attempt < 3 && !child; attempt++) {
    port = await freePort();
    fs.writeFileSync(path.join(dir, 'squid.conf'), config(dir, port, opts.auth !== undefined), { mode: 0o644 });
    const started = spawn(SQUID, ['-N', '-f', path.join(dir, 'squid.conf')], { stdio: 'ignore' });
    try {
      await ready(started, dir, port);
      child = started;
    } catch (e) {
      started.kill('SIGKILL');
      if (attempt === 2) throw e;
    }
  }
  const chunks: Buffer[] = [];
  const recorder = await startRecorder(port, chunks);
  const seen = (): string => Buffer.concat(chunks).toString('latin1');
  const exited = new Promise<void>((resolve) => child?.once('exit', () => resolve()));
  return {
    url: `http://127.0.0.1:${recorder.port}`,
    seen,
    connects: () => [...seen().matchAll(/^CONNECT (\S+) HTTP\/1\.1\r$/gm)].map((m) => m[1]),
    accessLog: () => {
      const file = path.join(dir, 'access.log');
      return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter((l) => l !== '') : [];
    },
    close: async () => {
      await recorder.close();
      child?.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3_000))]);
      child?.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
