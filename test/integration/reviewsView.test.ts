// The app's code reviews in the Runs view, end to end in the extension host against the
// emulator: with its deployed profile (which lists `/code-reviews` in /openapi.json) the
// `agentRuns.codeReviews` key turns on and the app's row gets a "Code reviews" row whose reviews
// are the service's, numbered, with who asked and what was compared. Version C lists them
// without ids: the one started here opens, the others offer Track Code Review by ID; version B's
// ids open every one. With its reference profile the key is off and no such row exists. The key learns from a read of /openapi.json the extension makes
// anyway: here the start tool's (it checks the model against the models the schema offers).
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { CodeReviewListItem } from '../../src/api/reviewTypes';
import type { AppNode } from '../../src/runs/common/nodes';
import type { AgentRunsTestApi } from '../../src/extension';
import type { RunsTreeElement } from '../../src/runs/runsTree';
import { readTestContext } from '../support/testContext';
import { activateForApp, admin, none, restoreReference, waitFor } from './emulatorAdmin';

describe('Code reviews in the Runs view, against the emulator', function () {
  this.timeout(120_000);
  const context = readTestContext();
  let api: AgentRunsTestApi;

  // The extension's elements come from its own bundle: told apart by `kind`, not by class.
  const isApp = (e: RunsTreeElement): e is AppNode => (e as { kind?: unknown }).kind === 'app';
  const isRun = (e: RunsTreeElement): boolean => (e as { kind?: unknown }).kind === 'run';
  const children = async (e?: RunsTreeElement): Promise<RunsTreeElement[]> => api.runsTree.getChildren(e);
  const labelOf = (e: RunsTreeElement): string => {
    const l = api.runsTree.getTreeItem(e).label;
    return typeof l === 'string' ? l : l?.label ?? '';
  };
  /** Starts a run with the tool (which reads /openapi.json) and waits for it to end. */
  const startAndFinish = async (prompt: string): Promise<void> => {
    const result = await api.assistant.tool('agentRuns_startRun')!.invoke({ input: { prompt }, toolInvocationToken: undefined }, none);
    const text = result?.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('') ?? '';
    const id = /Started agent run (\S+) on app_todo/.exec(text)?.[1];
    assert.ok(id, text);
    await waitFor(`${id} to finish`, () => {
      const status = api.ledger().get(id)?.status;
      return status === 'completed' || status === 'error' ? status : undefined;
    });
  };

  before(async function () {
    if (!context) this.skip();
    ({ api } = await activateForApp(context));
  });

  after(async () => {
    if (!context) return;
    await restoreReference(context);
  });

  /** The app's "Code reviews" row read again, its groups as the service's lists (every list has a review). */
  const reviewGroups = async (): Promise<{ groups: RunsTreeElement[]; served: Record<'open' | 'merged' | 'closed', CodeReviewListItem[]>; expected: Array<'open' | 'merged' | 'closed'> }> => {
    const app = await waitFor('the app_todo row', async () => (await children()).find((e): e is AppNode => isApp(e) && e.key === 'app_todo'));
    const [row] = await children(app);
    assert.equal(labelOf(row), 'Code reviews');
    await vscode.commands.executeCommand('agentRuns.refreshCodeReviews', { appId: 'app_todo' });
    const res = await fetch(`${context!.emulator.baseUrl}/code-reviews?appId=app_todo&limit=50`, { headers: { authorization: `Bearer ${context!.emulator.tokens.default}` } });
    assert.equal(res.status, 200);
    const served = (await res.json()) as Record<'open' | 'merged' | 'closed', CodeReviewListItem[]>;
    const groups = await children(row);
    const expected = (['open', 'merged', 'closed'] as const).filter((s) => served[s].length > 0);
    assert.deepEqual(groups.map(labelOf), expected.map((s) => s[0].toUpperCase() + s.slice(1)));
    assert.ok(expected.includes('open') && expected.includes('merged') && expected.includes('closed'), `every list has a review: ${expected.join(', ')}`);
    return { groups, served, expected };
  };

  it('deployed profile (version C): every review listed (no ids there), numbered; one started here opens, the others offer Track Code Review by ID', async () => {
    await admin(context!, 'PATCH', '/settings', { preset: 'deployed', staleReadMs: null, staleStatusAfterFollowUpMs: null });
    await admin(context!, 'PUT', '/wider', { version: 'C' });
    // An open review besides the seeded merged and closed ones.
    await admin(context!, 'POST', '/code-review-conversations', { appId: 'app_todo', title: 'Integration: reviews in the Runs view' });
    await startAndFinish('Integration: the Runs view learns that code reviews are served');
    await waitFor('agentRuns.codeReviews to turn on', () => (api.codeReviews() ? true : undefined));
    // One started here: its reviewId is known, and its row opens it.
    const started = await api.assistant.tool('agentRuns_startCodeReview')!.invoke({ input: { appId: 'app_todo', fromVersion: 'fix/login-redirect', toVersion: 'main', title: 'Integration: started here' }, toolInvocationToken: undefined }, none);
    const startedText = started?.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('') ?? '';
    const reviewId = /Started code review (\S+)/.exec(startedText)?.[1];
    assert.ok(reviewId, startedText);

    const { groups, served, expected } = await reviewGroups();
    // The reviews whose ID this editor knows: started here (this test's and earlier ones'), or read
    // by ID before (an earlier test opened a seeded one under B); their numbers as the service gives them.
    const knownIds = new Set([
      ...api.ledger().all().filter((r) => r.appId === 'app_todo').map((r) => r.reviewId),
      ...(api.globalState.get<Array<{ reviewId: string }>>(`agentRuns.knownReviews.v1:${api.connection().baseUrl ?? ''}`) ?? []).map((k) => k.reviewId),
    ].filter((id): id is string => id !== undefined));
    const knownHere = new Map<number, string>();
    for (const id of knownIds) {
      const res = await fetch(`${context!.emulator.baseUrl}/code-reviews/${id}`, { headers: { authorization: `Bearer ${context!.emulator.tokens.default}` } });
      // Version C reads only reviews created over REST; one read before under B is known by the number it had then.
      const detail = res.ok ? (await res.json()) as { review?: { sequence?: number } } : undefined;
      const remembered = api.globalState.get<Array<{ reviewId: string; sequence?: number }>>(`agentRuns.knownReviews.v1:${api.connection().baseUrl ?? ''}`)?.find((k) => k.reviewId === id);
      const sequence = detail?.review?.sequence ?? remembered?.sequence;
      if (sequence !== undefined) knownHere.set(sequence, id);
    }
    let opened = 0;
    for (const [i, status] of expected.entries()) {
      const rows = (await children(groups[i])).map((e) => api.runsTree.getTreeItem(e));
      assert.equal(rows.length, served[status].length, `${status}: every review the service lists`);
      for (const [j, r] of served[status].entries()) {
        const item = rows[j];
        assert.equal(r.id, undefined, 'version C lists no id');
        const name = r.title ?? `${r.fromVersionLabel ?? r.fromVersion} → ${r.toVersionLabel ?? r.toVersion}`;
        assert.equal(item.label, `#${r.sequence} ${name}`);
        const description = String(item.description);
        const who = r.requestedByName ?? r.requestedByEmail;
        assert.ok(who === undefined || who === null || description.includes(who), `#${r.sequence} says who asked: ${description}`);
        const known = r.sequence !== undefined ? knownHere.get(r.sequence) : undefined;
        if (known !== undefined) {
          if (r.title === 'Integration: started here') opened++;
          assert.equal(item.command?.command, 'agentRuns.openCodeReview', `#${r.sequence}: started here`);
          assert.deepEqual(item.command?.arguments, [{ reviewId: known, appId: 'app_todo', ...(r.title ? { title: r.title } : {}) }]);
          assert.equal(item.contextValue, 'codeReview');
        } else {
          assert.equal(item.command?.command, 'agentRuns.trackCodeReview', `#${r.sequence}: its ID is not known here`);
          assert.deepEqual(item.command?.arguments, [{ appId: 'app_todo', sequence: r.sequence, ...(r.mergeId ? { mergeId: r.mergeId } : {}), ...(r.title ? { title: r.title } : {}), fromRow: true }]);
          assert.equal(item.contextValue, 'codeReviewUnknown');
          assert.match(description, /^ID not known here/);
        }
      }
    }
    assert.equal(opened, 1, 'the review this test started is listed once, and opens');
    assert.ok([...knownHere.values()].includes(reviewId), 'this test\'s review is among those known here');
  });

  it('deployed profile, version B: the list\'s own ids open every review', async () => {
    await admin(context!, 'PUT', '/wider', { version: 'B' });
    try {
      const { groups, served, expected } = await reviewGroups();
      for (const [i, status] of expected.entries()) {
        const rows = (await children(groups[i])).map((e) => api.runsTree.getTreeItem(e));
        assert.deepEqual(rows.map((r) => r.id), served[status].map((r) => `codeReview:app_todo:id:${r.id}`), `${status}: the service's reviews, newest first`);
        for (const [j, r] of served[status].entries()) {
          const item = rows[j];
          const description = String(item.description);
          const who = r.requestedByName ?? r.requestedByEmail;
          assert.ok(who === undefined || who === null || description.includes(who), `${r.id} says who asked: ${description}`);
          assert.ok(description.includes(`${r.fromVersionLabel ?? r.fromVersion} → ${r.toVersionLabel ?? r.toVersion}`), `${r.id} names the versions: ${description}`);
          assert.equal(item.label, `#${r.sequence} ${r.title}`);
          assert.equal(item.command?.command, 'agentRuns.openCodeReview');
          assert.deepEqual(item.command?.arguments, [{ reviewId: r.id, appId: 'app_todo', title: r.title }]);
        }
      }
    } finally {
      await admin(context!, 'PUT', '/wider', { version: 'C' });
    }
  });

  it('reference profile: the key is off and no app has a "Code reviews" row', async () => {
    await admin(context!, 'PATCH', '/settings', { preset: 'reference' });
    await startAndFinish('Integration: the Runs view learns that code reviews are not served');
    await waitFor('agentRuns.codeReviews to turn off', () => (api.codeReviews() ? undefined : true));
    const roots = await children();
    assert.ok(roots.some(isApp), 'the runs are listed');
    for (const root of roots) {
      if (!isApp(root)) continue;
      const rows = await children(root);
      assert.ok(rows.every(isRun), `${root.key}: only runs (${rows.map(labelOf).join(', ')})`);
    }
  });
});
