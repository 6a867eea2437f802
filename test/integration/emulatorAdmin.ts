// What the integration tests ask of the emulator besides the service's own API (its admin
// routes: settings, seeding, the request log), and the small waits and readings they share.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AgentRunsTestApi } from '../../src/extension';
import type { IntegrationTestContext } from '../support/testContext';

/** A token no test cancels. */
export const none = new vscode.CancellationTokenSource().token;

/** One request as the emulator logged it (`body` as received, headers lower-cased). */
export interface LoggedRequest {
  method: string;
  path: string;
  body: string;
  status?: number;
  headers: Record<string, string>;
}

/** An admin route (`/settings`, `/tests`, …): fails the test unless it answers 2xx; its JSON, if any. */
export async function admin(context: IntegrationTestContext, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${context.emulator.adminUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  assert.ok(res.ok, `${method} ${path}: ${res.status} ${text}`);
  return text ? (JSON.parse(text) as unknown) : undefined;
}

/** The requests the emulator logged from index `n` on, and the index to read from next. */
export async function requestsSince(context: IntegrationTestContext, n: number): Promise<{ requests: LoggedRequest[]; next: number }> {
  const res = await fetch(`${context.emulator.adminUrl}/requests?since=${n}`);
  return (await res.json()) as { requests: LoggedRequest[]; next: number };
}

/** What the service answers `path` with (the default token), as JSON; fails unless 200. */
export async function served<T>(context: IntegrationTestContext, path: string): Promise<T> {
  const res = await fetch(`${context.emulator.baseUrl}${path}`, { headers: { authorization: `Bearer ${context.emulator.tokens.default}` } });
  assert.equal(res.status, 200, path);
  return (await res.json()) as T;
}

/** Polls `probe` until it gives a value (neither undefined nor false); fails saying what it waited for. */
export async function waitFor<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, ms = 60_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > until) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A language model tool's result as text. */
export function resultText(result: vscode.LanguageModelToolResult | null | undefined): string {
  assert.ok(result, 'the tool returned no result');
  return result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

/** The extension activated, with app_todo and hosted/auto as the person's settings. */
export async function activateForApp(context: IntegrationTestContext): Promise<{ ext: vscode.Extension<unknown>; api: AgentRunsTestApi }> {
  const ext = vscode.extensions.all.find((e) => e.id.toLowerCase() === context.extensionId.toLowerCase());
  assert.ok(ext);
  const api = (await ext.activate()) as AgentRunsTestApi;
  const config = vscode.workspace.getConfiguration('agentRuns');
  await config.update('appId', 'app_todo', vscode.ConfigurationTarget.Global);
  await config.update('defaultModel', 'hosted/auto', vscode.ConfigurationTarget.Global);
  return { ext, api };
}

/** Back to what every other test assumes: the reference profile, no app or model set. */
export async function restoreReference(context: IntegrationTestContext): Promise<void> {
  await admin(context, 'PATCH', '/settings', { preset: 'reference' });
  const config = vscode.workspace.getConfiguration('agentRuns');
  await config.update('appId', undefined, vscode.ConfigurationTarget.Global);
  await config.update('defaultModel', undefined, vscode.ConfigurationTarget.Global);
}
