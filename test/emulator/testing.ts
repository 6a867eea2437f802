/**
 * Helpers for tests that talk to the emulator over HTTP (Node's fetch): a raw `call`, a typed
 * `ApiCaller`, an admin caller and `waitFor`. Deliberately independent of the extension's
 * own client, so the emulator's tests check the emulator and nothing else.
 */
import type { Emulator } from './index';
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';

export interface CallOptions {
  /** Bearer token; `null` sends no Authorization header. */
  token?: string | null;
  /** Serialised as JSON with `content-type: application/json`. */
  body?: unknown;
  /** Sent as is (use with `contentType`). */
  rawBody?: string;
  /** `null` sends no content type. */
  contentType?: string | null;
  headers?: Record<string, string>;
  redirect?: 'follow' | 'manual' | 'error';
  signal?: AbortSignal;
}

export interface CallResult {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body, or undefined when it is not JSON. */
  json: unknown;
}

export type Json = Record<string, unknown>;

export async function call(url: string, method: string, options: CallOptions = {}): Promise<CallResult> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined && options.token !== null) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) body = JSON.stringify(options.body);
  const contentType = options.contentType === undefined ? (body === undefined ? null : 'application/json') : options.contentType;
  if (contentType !== null) headers['content-type'] = contentType;
  const response = await fetch(url, { method, headers, body, redirect: options.redirect ?? 'manual', signal: options.signal });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text) as unknown;
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** The body as an object (fails the test when it is not one). */
export function obj(result: CallResult): Json {
  if (typeof result.json !== 'object' || result.json === null || Array.isArray(result.json)) {
    throw new Error(`Expected a JSON object (HTTP ${result.status}), got: ${result.text.slice(0, 200)}`);
  }
  return result.json as Json;
}

/** Calls the public API with one token. */
export class ApiCaller {
  constructor(private readonly emulator: Emulator, readonly token: string | null) {}

  request(method: string, path: string, options: Omit<CallOptions, 'token'> = {}): Promise<CallResult> {
    return call(`${this.emulator.baseUrl}${path}`, method, { ...options, token: this.token });
  }

  start(body: unknown): Promise<CallResult> {
    return this.request('POST', '/agents', { body });
  }

  get(agentId: string): Promise<CallResult> {
    return this.request('GET', `/agents/${encodeURIComponent(agentId)}`);
  }

  followUp(agentId: string, body: unknown): Promise<CallResult> {
    return this.request('POST', `/agents/${encodeURIComponent(agentId)}/messages`, { body });
  }

  createGroup(body: unknown): Promise<CallResult> {
    return this.request('POST', '/test-groups', { body });
  }

  /** `POST /test-runs` (deployed shapes). */
  startTestRun(body: unknown): Promise<CallResult> {
    return this.request('POST', '/test-runs', { body });
  }

  /** `POST /test-group-runs` (deployed shapes). */
  startTestGroupRun(body: unknown): Promise<CallResult> {
    return this.request('POST', '/test-group-runs', { body });
  }

  /** `GET /test-runs/{id}` or `GET /test-group-runs/{id}` that must answer 200. */
  async testRun(id: string, group = false): Promise<Json> {
    const result = await this.request('GET', `/${group ? 'test-group-runs' : 'test-runs'}/${encodeURIComponent(id)}`);
    if (result.status !== 200) throw new Error(`test run read failed: HTTP ${result.status} ${result.text}`);
    return obj(result);
  }

  /** Starts a run that must be accepted (201, or 202 under the deployed shapes), and returns its id. */
  async startOk(body: Json): Promise<string> {
    const result = await this.start(body);
    const accepted = this.emulator.state.settings.shapes === 'deployed' ? 202 : 201;
    if (result.status !== accepted) throw new Error(`start failed: HTTP ${result.status} ${result.text}`);
    return String(obj(result).agentId);
  }

  async agent(agentId: string): Promise<Json> {
    const result = await this.get(agentId);
    if (result.status !== 200) throw new Error(`get failed: HTTP ${result.status} ${result.text}`);
    return obj(result);
  }
}

/** Calls the admin API. */
export function admin(emulator: Emulator, method: string, path: string, body?: unknown): Promise<CallResult> {
  return call(`${emulator.adminUrl}${path}`, method, body === undefined ? {} : { body });
}

/** Calls the admin API at `adminUrl` and returns its JSON answer (undefined when empty); throws on a status of 300 or more. */
export async function adminOk(adminUrl: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const result = await call(`${adminUrl}${path}`, method, body === undefined ? {} : { body });
  if (result.status >= 300) {
    throw new Error(`admin ${method} ${path} answered ${result.status}: ${result.text.slice(0, 200)}`);
  }
  return result.text === '' ? undefined : (JSON.parse(result.text) as unknown);
}

/** Polls `condition` until it holds (or throws after `timeoutMs`): waits for a state, never for a fixed time. */
export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 5_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Advances a manual clock one step at a time until the run's status is terminal. */
export async function runToEnd(emulator: Emulator, caller: ApiCaller, agentId: string, stepMs = 1000, maxSteps = 500): Promise<Json> {
  for (let i = 0; i < maxSteps; i++) {
    const agent = await caller.agent(agentId);
    if (agent.status === 'completed' || agent.status === 'error') return agent;
    await emulator.advance(stepMs);
  }
  throw new Error(`run ${agentId} did not finish within ${maxSteps} steps`);
}

/** Advances a manual clock one step at a time until the test run (or group run) is no longer queued or running. */
export async function testRunToEnd(emulator: Emulator, caller: ApiCaller, id: string, group = false, stepMs = 1000, maxSteps = 200): Promise<Json> {
  for (let i = 0; i < maxSteps; i++) {
    const detail = await caller.testRun(id, group);
    const status = (detail.run as Json | undefined)?.status;
    if (status !== 'queued' && status !== 'running') return detail;
    await emulator.advance(stepMs);
  }
  throw new Error(`test run ${id} did not end within ${maxSteps} steps`);
}

/** `npm run emulator` as a child process (test/emulator/cli.js next to this file), with what it prints so far. */
export interface CliRun {
  readonly child: ChildProcess;
  /** stdout and stderr so far. */
  output(): string;
  /** The exit code. */
  readonly exited: Promise<number | null>;
}

export function spawnCli(args: readonly string[]): CliRun {
  const child = spawn(process.execPath, [path.join(__dirname, 'cli.js'), ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PORT: '' } });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}


/**
 * The admin hooks of the app's tests and versions (adminTests.ts) at `adminUrl`, for tests in this
 * process or another (the extension host, a browser test): hold, release or cancel a test run (or
 * every run of a group run), set the workspace's limit of active test runs (`null`: the default),
 * pick the published version served, script an automation's next run, set how many steps of the
 * clock `POST /versions/sync` waits (so it can answer 200), and make a branch's syncs fail (`null`:
 * succeed again).
 */
export function testAdmin(adminUrl: string): {
  hold(runId: string): Promise<unknown>;
  release(runId: string): Promise<unknown>;
  cancel(runId: string): Promise<unknown>;
  setTestRunLimit(limit: number | null, workspaceId?: string): Promise<unknown>;
  setWider(version: 'A' | 'B' | 'C'): Promise<unknown>;
  scriptAutomation(automationId: string, patch: { nextRunError?: string | null; enabled?: boolean }): Promise<unknown>;
  setSyncWait(steps: number): Promise<unknown>;
  failSync(version: string, error: string | null, appId?: string): Promise<unknown>;
} {
  const runAction = (runId: string, action: string): Promise<unknown> => adminOk(adminUrl, 'POST', `/test-runs/${encodeURIComponent(runId)}/${action}`);
  return {
    hold: (runId) => runAction(runId, 'hold'),
    release: (runId) => runAction(runId, 'release'),
    cancel: (runId) => runAction(runId, 'cancel'),
    setTestRunLimit: (limit, workspaceId) => adminOk(adminUrl, 'PUT', '/test-run-limit', workspaceId === undefined ? { limit } : { limit, workspaceId }),
    setWider: (version) => adminOk(adminUrl, 'PUT', '/wider', { version }),
    scriptAutomation: (automationId, patch) => adminOk(adminUrl, 'PATCH', `/automations/${encodeURIComponent(automationId)}`, patch),
    setSyncWait: (steps) => adminOk(adminUrl, 'PUT', '/sync-wait', { steps }),
    failSync: (version, error, appId) => adminOk(adminUrl, 'PUT', '/sync-failure', appId === undefined ? { version, error } : { appId, version, error }),
  };
}
