// One in-process service emulator (manual clock) per test file of the Node tier, its tokens
// registered as secrets, and small helpers to make runs and read the request log.
import { startEmulator, type Emulator, type FaultRule, type LoggedRequest } from '../../emulator/index';
import { registerEmulatorTokens, registerSecret } from '../registry';
import { adminOk } from '../../emulator/testing';

export interface EmulatorFixture {
  (): Emulator;
}

/** Mocha hooks: an emulator for the describe block, reset before each test, closed after. */
export function useEmulator(): EmulatorFixture {
  let emu: Emulator | undefined;
  before(async () => {
    emu = await startEmulator({ clock: 'manual', stepMs: 1_000 });
    registerEmulatorTokens(emu.tokens, emu.baseUrl);
  });
  beforeEach(() => {
    emu?.reset();
  });
  after(async () => {
    await emu?.close();
    emu = undefined;
  });
  return () => {
    if (!emu) {
      throw new Error('the emulator is not running');
    }
    return emu;
  };
}

async function call(emu: Emulator, method: string, path: string, body?: unknown, token = emu.tokens.default): Promise<unknown> {
  const res = await fetch(`${emu.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) {
    throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 200)}`);
  }
  return JSON.parse(text) as unknown;
}

export function admin(emu: Emulator, method: string, path: string, body?: unknown): Promise<unknown> {
  return adminOk(emu.adminUrl, method, path, body);
}

/** Starts a run through the public API and lets the emulator run `steps` steps of it. */
export async function startRun(emu: Emulator, prompt: string, steps = 3): Promise<string> {
  const run = (await call(emu, 'POST', '/agents', { appId: 'app_todo', prompt, model: 'hosted/fast' })) as { agentId: string };
  for (let i = 0; i < steps; i++) {
    await emu.advance(1_000);
  }
  // The script of a short turn would finish it: hold it as running so it stays followed.
  await admin(emu, 'PATCH', `/agents/${encodeURIComponent(run.agentId)}`, { status: 'running' });
  return run.agentId;
}

/** A new token of the main workspace (so revoking it breaks nothing else). */
export async function newToken(emu: Emulator): Promise<{ token: string; id: string }> {
  const made = (await admin(emu, 'POST', '/tokens', { workspaceId: 'ws_acme', name: 'faults' })) as { token: string; id: string };
  registerSecret(made.token, { label: 'a token made for a node-tier scenario', baseUrl: emu.baseUrl });
  return made;
}

export function inject(emu: Emulator, rule: FaultRule): void {
  emu.inject(rule);
}

/** Requests the emulator's API listener received that match. */
export function requests(emu: Emulator, method: string, path: RegExp): LoggedRequest[] {
  return emu.requests.filter((r) => r.method === method && path.test(r.path));
}

export function agentPath(agentId: string): string {
  return `^/agents/${agentId.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`;
}
