// "Start Code Review…" in the extension host (issue 21): the real command, its quick inputs
// accepted with the workbench's own accept command (as Enter would), the real client against the
// emulator's deployed profile. The versions come from GET /versions: the form offers the two
// newest ready ones, and the one POST /code-reviews compares exactly those; the review's
// conversation is listed (kind code_review, its reviewId, the review's name), opened in the run
// panel and followed to its end. Against the reference profile the command says so and sends
// nothing. The typing parts are the UI tests'.
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

interface Version { versionId: string; versionDisplay?: string; stage?: string }

describe('Start Code Review (extension host, deployed profile)', function () {
  this.timeout(120_000);
  const context = readTestContext();
  let api: AgentRunsTestApi;

  before(async function () {
    if (!context) this.skip();
    const ext = vscode.extensions.all.find((e) => e.id.toLowerCase() === context.extensionId.toLowerCase());
    assert.ok(ext);
    api = (await ext.activate()) as AgentRunsTestApi;
    await admin(context, 'PATCH', '/settings', { preset: 'deployed', staleReadMs: null, staleStatusAfterFollowUpMs: null });
  });

  after(async () => {
    if (!context) return;
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    await admin(context, 'PATCH', '/settings', { preset: 'reference' });
  });

  it('from an app\'s row: the two newest ready versions of GET /versions, one POST, listed as the review\'s conversation, opened and followed to its end', async () => {
    const ctx = context!;
    // What GET /versions lists first (newest first): the form offers "to" the newest ready version, "from" the ready one before it.
    const { versions } = await served<{ versions: Version[] }>(ctx, '/versions?appId=app_todo');
    const ready = versions.filter((v) => v.stage === 'completed');
    assert.ok(ready.length >= 2, 'the seed has two ready versions on the first page');
    const [to, from] = ready;
    const before = new Set(api.ledger().all().map((r) => r.agentId));
    const { next } = await requestsSince(ctx, 0);

    await runAccepting('agentRuns.startCodeReview', { kind: 'app', key: 'app_todo' });

    const log = (await requestsSince(ctx, next)).requests;
    const posts = log.filter((r) => r.method === 'POST');
    assert.deepEqual(posts.map((p) => [p.path.split('?')[0].replace(/^.*\/api\/public\/v1/, ''), p.status]), [['/code-reviews', 202]], 'exactly one POST, accepted');
    const body = JSON.parse(posts[0].body) as Record<string, unknown>;
    assert.deepEqual([body.appId, body.fromVersion, body.toVersion], ['app_todo', from.versionId, to.versionId]);
    assert.ok(log.some((r) => r.method === 'GET' && r.path.includes('/versions?appId=app_todo')), 'the versions came from GET /versions');

    const [record] = api.ledger().all().filter((r) => !before.has(r.agentId));
    assert.ok(record, 'the review\'s conversation is not listed');
    assert.deepEqual([record.kind, record.source, record.appId, record.prompt], ['code_review', 'started', 'app_todo', `Code review ${from.versionDisplay} → ${to.versionDisplay}`]);
    const lists = await served<{ open: { id: string; agentId?: string; fromVersion?: string; toVersion?: string }[] }>(ctx, '/code-reviews?appId=app_todo');
    const listed = lists.open.find((r) => r.id === record.reviewId);
    assert.deepEqual([listed?.fromVersion, listed?.toVersion], [from.versionId, to.versionId], 'the record\'s reviewId is the review the service lists');

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
