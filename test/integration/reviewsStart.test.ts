// "Start Code Review…" in the extension host (issues 21, 31): the real command, its quick inputs
// accepted with the workbench's own accept command (as Enter would), the real client against the
// emulator's deployed profile. Each side asks for a branch first (the known ones: here the
// agentRuns.branches setting), then its versions (GET /versions, always with the branch): under
// version C the defaults compare the two branches themselves, under B each branch's newest ready
// version. One POST /code-reviews; the review's conversation is listed, opened in the run panel
// and followed to its end. Against the reference profile the command says so and sends nothing.
// The typing parts are the UI tests'.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AgentRunsTestApi } from '../../src/extension';
import { readTestContext } from '../support/testContext';
import { admin, requestsSince, served, waitFor } from './emulatorAdmin';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Runs a command whose quick inputs are accepted, as Enter would, until it resolves. */
async function runAccepting(command: string, arg: unknown, ms = 30_000): Promise<void> {
  let done = false;
  const running = Promise.resolve(vscode.commands.executeCommand(command, arg)).finally(() => {
    done = true;
  });
  const until = Date.now() + ms;
  while (!done && Date.now() < until) {
    await sleep(250);
    if (!done) await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
  }
  assert.ok(done, `${command} did not finish: a step was not accepted`);
  await running;
}

interface Version { versionId: string; version?: string; versionDisplay?: string; stage?: string }
interface ListItem { id?: string; sequence?: number; fromVersion?: string; toVersion?: string }

const APP = 'app_todo';

describe('Start Code Review (extension host, deployed profile)', function () {
  this.timeout(120_000);
  const context = readTestContext();
  let api: AgentRunsTestApi;

  /** Nothing known of app_todo's branches but the setting: the form's defaults are the setting's branches. */
  const knowOnly = async (branches: string[]): Promise<void> => {
    const baseUrl = api.connection().baseUrl ?? '';
    await api.globalState.update(`agentRuns.branches.v1:${baseUrl}:${APP}`, undefined);
    await api.globalState.update(`agentRuns.testBranch.v1:${baseUrl}:${APP}`, undefined);
    await vscode.workspace.getConfiguration('agentRuns').update('branches', branches, vscode.ConfigurationTarget.Global);
  };

  /** Starts a review from the app's row accepting every default; the one POST's body, and the new conversation. */
  const startAccepting = async (): Promise<{ body: Record<string, unknown>; record: ReturnType<ReturnType<AgentRunsTestApi['ledger']>['all']>[number]; versionReads: string[] }> => {
    const ctx = context!;
    const before = new Set(api.ledger().all().map((r) => r.agentId));
    const { next } = await requestsSince(ctx, 0);
    await runAccepting('agentRuns.startCodeReview', { kind: 'app', key: APP });
    const log = (await requestsSince(ctx, next)).requests;
    const posts = log.filter((r) => r.method === 'POST');
    assert.deepEqual(posts.map((p) => [p.path.split('?')[0].replace(/^.*\/api\/public\/v1/, ''), p.status]), [['/code-reviews', 202]], 'exactly one POST, accepted');
    const [record] = api.ledger().all().filter((r) => !before.has(r.agentId));
    assert.ok(record, 'the review\'s conversation is not listed');
    const versionReads = log.filter((r) => r.method === 'GET' && /\/versions\?/.test(r.path)).map((r) => r.path.replace(/^.*\/api\/public\/v1/, ''));
    return { body: JSON.parse(posts[0].body) as Record<string, unknown>, record, versionReads };
  };

  before(async function () {
    if (!context) this.skip();
    const ext = vscode.extensions.all.find((e) => e.id.toLowerCase() === context.extensionId.toLowerCase());
    assert.ok(ext);
    api = (await ext.activate()) as AgentRunsTestApi;
    await admin(context, 'PATCH', '/settings', { preset: 'deployed', staleReadMs: null, staleStatusAfterFollowUpMs: null });
    await admin(context, 'PUT', '/wider', { version: 'C' });
  });

  after(async () => {
    if (!context) return;
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    await vscode.workspace.getConfiguration('agentRuns').update('branches', undefined, vscode.ConfigurationTarget.Global);
    await admin(context, 'PUT', '/wider', { version: 'C' });
    await admin(context, 'PATCH', '/settings', { preset: 'reference' });
  });

  it('C, from an app\'s row: a branch first (the known ones), then the branch itself; two branches compared in one POST, listed, opened and followed to its end', async () => {
    const ctx = context!;
    await knowOnly(['feature/request-timeouts', 'main']);
    const { body, record, versionReads } = await startAccepting();
    // The source defaults to the feature branch, the target to main; each compared as the branch itself.
    assert.deepEqual([body.appId, body.fromVersion, body.toVersion], [APP, 'feature/request-timeouts', 'main']);
    assert.deepEqual(versionReads.sort(), [`/versions?appId=${APP}&version=feature%2Frequest-timeouts`, `/versions?appId=${APP}&version=main`], 'GET /versions only with a branch');
    assert.deepEqual([record.kind, record.source, record.appId], ['code_review', 'started', APP]);
    assert.match(record.prompt ?? '', /^Code review .+ → .+$/);
    const lists = await served<{ open: ListItem[] }>(ctx, `/code-reviews?appId=${APP}`);
    assert.ok(lists.open.every((r) => r.id === undefined), 'version C lists reviews without id');
    assert.ok(lists.open.some((r) => r.fromVersion === 'feature/request-timeouts' && r.toVersion === 'main'), 'the service lists the review as sent');

    // The editor's tab model follows the panel's creation asynchronously.
    await waitFor('the run panel to open', () => (vscode.window.tabGroups.all.flatMap((g) => g.tabs)
      .some((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('agentRuns.run')) ? true : undefined), 10_000);
    const status = await waitFor('the review\'s conversation to end', () => {
      const s = api.ledger().get(record.agentId)?.status;
      return s === 'completed' || s === 'error' ? s : undefined;
    });
    assert.equal(status, 'completed');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('B: the same defaults compare each branch\'s newest ready version (B takes version IDs only)', async () => {
    const ctx = context!;
    await admin(ctx, 'PUT', '/wider', { version: 'B' });
    try {
      await knowOnly(['feature/request-timeouts', 'main']);
      const newestReady = async (branch: string): Promise<Version> => {
        const { versions } = await served<{ versions: Version[] }>(ctx, `/versions?appId=${APP}&version=${encodeURIComponent(branch)}`);
        const ready = versions.find((v) => v.stage === 'completed');
        assert.ok(ready, `${branch} has a completed version`);
        return ready;
      };
      const [from, to] = [await newestReady('feature/request-timeouts'), await newestReady('main')];
      const { body, record } = await startAccepting();
      assert.deepEqual([body.fromVersion, body.toVersion], [from.versionId, to.versionId]);
      const lists = await served<{ open: ListItem[] }>(ctx, `/code-reviews?appId=${APP}`);
      assert.ok(lists.open.some((r) => r.id === record.reviewId), 'B lists the review with its id, the one the record holds');
    } finally {
      await admin(ctx, 'PUT', '/wider', { version: 'C' });
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });

  it('against the reference profile (no /code-reviews in its schema) it says so and stops: no quick input, nothing but the schema read', async () => {
    const ctx = context!;
    await admin(ctx, 'PATCH', '/settings', { preset: 'reference' });
    try {
      const { next } = await requestsSince(ctx, 0);
      await Promise.race([
        vscode.commands.executeCommand('agentRuns.startCodeReview'),
        sleep(10_000).then(() => assert.fail('the command waited for input')),
      ]);
      // The poller may read runs meanwhile; anything else is the command's.
      const log = (await requestsSince(ctx, next)).requests.filter((r) => r.path.includes('/api/public/v1') && !/\/agents\/[^/]+(\?|$)/.test(r.path));
      assert.deepEqual(log.map((r) => `${r.method} ${r.path.replace(/^.*\/api\/public\/v1/, '')}`), ['GET /openapi.json']);
    } finally {
      await admin(ctx, 'PATCH', '/settings', { preset: 'deployed', staleReadMs: null, staleStatusAfterFollowUpMs: null });
    }
  });
});
