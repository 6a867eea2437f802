// Helpers for the fault scenarios that run in the extension host: the extension's test API,
// the emulator's admin API over HTTP, the profile's files (logs, settings, storage), and the
// crash check that reads the extension host's and the extension's own logs.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentRunsTestApi } from '../../../src/extension';
import { requireTestContext, SEED_TOKEN_FILE_ENV, type IntegrationTestContext } from '../../support/testContext';
import { PROFILE_ENV, registerEmulatorTokens, registerSecret, type Scenario } from '../registry';
import { adminOk } from '../../emulator/testing';


export interface LoggedRequest {
  at: number;
  origin: string;
  method: string;
  path: string;
  status?: number;
  fault?: string;
  headers: Record<string, string>;
  body: string;
}

/** Waits for a condition, checking every 50 ms (never a fixed sleep). */
export async function waitFor<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) {
      return value;
    }
    if (Date.now() - started > timeoutMs) {
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

export class Host {
  readonly context: IntegrationTestContext = requireTestContext();
  readonly userDataDir: string;
  private constructor(readonly api: AgentRunsTestApi) {
    // The launcher writes this file once the profile exists (after the environment was fixed).
    const file = process.env[PROFILE_ENV];
    assert.ok(file, `${PROFILE_ENV} is not set`);
    this.userDataDir = (JSON.parse(fs.readFileSync(file, 'utf8')) as { userDataDir: string }).userDataDir;
    registerEmulatorTokens(this.context.emulator.tokens, this.context.emulator.baseUrl);
  }

  static async start(): Promise<Host> {
    const context = requireTestContext();
    const ext = vscode.extensions.getExtension<AgentRunsTestApi>(context.extensionId);
    assert.ok(ext, `${context.extensionId} is not installed`);
    const api = await ext.activate();
    const host = new Host(api);
    await waitFor('the seeded token', () => api.connection().signedIn);
    return host;
  }

  get baseUrl(): string {
    return this.context.emulator.baseUrl;
  }

  get tokens(): Readonly<Record<string, string>> {
    return this.context.emulator.tokens;
  }

  admin(method: string, route: string, body?: unknown): Promise<unknown> {
    return adminOk(this.context.emulator.adminUrl, method, route, body);
  }

  async fault(rule: Record<string, unknown>): Promise<void> {
    await this.admin('POST', '/faults', rule);
  }

  async clearFaults(): Promise<void> {
    await this.admin('DELETE', '/faults');
  }

  async requests(since = 0): Promise<LoggedRequest[]> {
    return ((await this.admin('GET', `/requests?since=${since}`)) as { requests: LoggedRequest[] }).requests;
  }

  async requestCount(): Promise<number> {
    return ((await this.admin('GET', '/requests?since=0')) as { next: number }).next;
  }

  /** Starts a run through the public API (as a script elsewhere would) and returns its ID. */
  async startRun(prompt: string): Promise<string> {
    const res = await fetch(`${this.baseUrl}/agents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${this.tokens.default}`, 'content-type': 'application/json' },
      body: JSON.stringify({ appId: 'app_todo', prompt, model: 'hosted/fast' }),
    });
    const text = await res.text();
    assert.equal(res.status, 201, text);
    return (JSON.parse(text) as { agentId: string }).agentId;
  }

  /** Holds a run where it is (the emulator stops advancing it) and forces its status. */
  async hold(agentId: string, patch: Record<string, unknown> = { status: 'running' }): Promise<void> {
    await this.admin('PATCH', `/agents/${encodeURIComponent(agentId)}`, patch);
  }

  /** A fresh token of the main workspace, registered as a secret (the token for `baseUrl`, in a leak report). */
  async newToken(baseUrl = this.baseUrl): Promise<{ token: string; id: string }> {
    const made = (await this.admin('POST', '/tokens', { workspaceId: 'ws_acme', name: 'faults-host' })) as { token: string; id: string };
    registerSecret(made.token, { label: 'a token made for a host-tier scenario', baseUrl });
    return made;
  }

  /** Stores `token` the way the launcher does (the seed file), as "Set API Token" would. */
  async setToken(token: string): Promise<void> {
    const file = process.env[SEED_TOKEN_FILE_ENV];
    assert.ok(file, `${SEED_TOKEN_FILE_ENV} is not set`);
    fs.writeFileSync(file, token, { mode: 0o600 });
    assert.equal(await this.api.seedToken(), true);
  }

  /** Every log file of this profile, by name. */
  logFiles(): string[] {
    const root = path.join(this.userDataDir, 'logs');
    if (!fs.existsSync(root)) {
      return [];
    }
    return fs.readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((n) => n.endsWith('.log')).map((n) => path.join(root, n));
  }

  /** The "Agent Runs" output channel as written to disk. */
  outputLog(): string {
    return this.logFiles().filter((f) => /(?:^|[\\/])(?:\d+-)?Agent Runs\.log$/.test(f)).map((f) => fs.readFileSync(f, 'utf8')).join('');
  }

  extensionHostLog(): string {
    return this.logFiles().filter((f) => /exthost\.log$/.test(f)).map((f) => fs.readFileSync(f, 'utf8')).join('');
  }

  /** Every file under the user-data folder (settings, storage, logs, transcript caches), as text. */
  userDataFiles(): { file: string; text: string }[] {
    const out: { file: string; text: string }[] = [];
    for (const name of fs.readdirSync(this.userDataDir, { recursive: true, encoding: 'utf8' })) {
      const file = path.join(this.userDataDir, name);
      let stat: fs.Stats;
      try {
        stat = fs.statSync(file);
      } catch {
        continue;
      }
      if (stat.isFile() && stat.size < 50_000_000) {
        out.push({ file: name, text: fs.readFileSync(file).toString('latin1') });
      }
    }
    return out;
  }

  /** Remembers where the logs are now, so `crashCheck` sees only what came after. */
  mark(): { output: number; host: number } {
    return { output: this.outputLog().length, host: this.extensionHostLog().length };
  }

  /**
   * Errors since `mark`: the extension's own error lines (a listener or callback that threw,
   * a command that failed unexpectedly) and the extension host's error lines naming it.
   */
  crashCheck(s: Scenario, since: { output: number; host: number }): void {
    const output = this.outputLog().slice(since.output);
    for (const line of output.split('\n')) {
      if (/\[error\]|listener failed| threw: |Poller bug|failed unexpectedly/i.test(line)) {
        s.crash(`output channel: ${line.trim()}`);
      }
    }
    const hostLog = this.extensionHostLog().slice(since.host);
    for (const line of hostLog.split('\n')) {
      if (/\[error\]/i.test(line) && /agent-runs/i.test(line)) {
        s.crash(`extension host: ${line.trim()}`);
      }
    }
  }
}

/** A scenario body with the crash check and the output-channel sink around it. */
export async function checked(host: Host, s: Scenario, body: () => Promise<void>): Promise<void> {
  const since = host.mark();
  try {
    await body();
  } finally {
    await host.clearFaults().catch(() => undefined);
    host.crashCheck(s, since);
    s.sink('output channel (trace level)', host.outputLog().slice(since.output));
  }
}
