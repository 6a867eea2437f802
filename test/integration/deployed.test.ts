// The deployed service's shapes, end to end in the extension host: the emulator switched to its
// deployed profile (202 on starts and follow-ups, object tool parameters and attachments, six
// roles, null content, code review conversations, the 409s of the concurrent-agent limit), and
// the extension's own ways in: the tools, the chat handler, "Track Run by ID", the ledger and
// the saved transcript. Every suite before and after this one runs against the reference shapes.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AgentRunsTestApi } from '../../src/extension';
import { readTestContext, type IntegrationTestContext } from '../support/testContext';
import { activateForApp, admin, none, restoreReference, resultText, waitFor } from './emulatorAdmin';

async function postsSince(context: IntegrationTestContext, n: number): Promise<{ posts: { path: string; status?: number }[]; next: number }> {
  const res = await fetch(`${context.emulator.adminUrl}/requests?since=${n}`);
  const log = (await res.json()) as { requests: { method: string; path: string; status?: number }[]; next: number };
  return { posts: log.requests.filter((r) => r.method === 'POST'), next: log.next };
}

describe('Deployed profile: the service\'s own shapes through the extension', function () {
  this.timeout(120_000);
  const context = readTestContext();
  let api: AgentRunsTestApi;

  const start = async (prompt: string): Promise<string> => {
    const text = resultText(await api.assistant.tool('agentRuns_startRun')!.invoke({ input: { prompt }, toolInvocationToken: undefined }, none));
    const id = /Started agent run (\S+) on app_todo/.exec(text)?.[1];
    assert.ok(id, text);
    return id;
  };
  const finished = (id: string): Promise<string> =>
    waitFor(`${id} to finish`, () => {
      const status = api.ledger().get(id)?.status;
      return status === 'completed' || status === 'error' ? status : undefined;
    });

  before(async function () {
    if (!context) this.skip();
    ({ api } = await activateForApp(context));
    // The deployed shapes with current reads: what differs here is the shapes, not the replica.
    await admin(context, 'PATCH', '/settings', { preset: 'deployed', staleReadMs: null, staleStatusAfterFollowUpMs: null });
  });

  after(async () => {
    if (!context) return;
    await admin(context, 'PATCH', '/workspaces/ws_acme', { concurrentAgentLimit: null });
    await restoreReference(context);
  });

  it('a run started (202) is followed to its end; its object tool parameters, attachment objects and six roles are kept and read back', async () => {
    const id = await start('Integration: deployed shapes, see ENG-12');
    assert.equal(api.ledger().get(id)?.source, 'started', 'a 202 is a start, not "may have started"');
    await finished(id);
    await api.flush();
    // The service's own history, as served to any client: what the extension must not lose.
    const res = await fetch(`${context!.emulator.baseUrl}/agents/${id}?historyLimit=500`, { headers: { authorization: `Bearer ${context!.emulator.tokens.default}` } });
    assert.equal(res.status, 200);
    const served = (await res.json()) as { history?: { role?: string; toolParameters?: unknown; attachments?: unknown[] }[] };
    const objectParams = (served.history ?? []).filter((m) => m.toolParameters !== null && typeof m.toolParameters === 'object');
    const objectAttachments = (served.history ?? []).flatMap((m) => m.attachments ?? []).filter((a) => a !== null && typeof a === 'object');
    assert.ok(objectParams.length > 0 && objectAttachments.length > 0, 'the deployed profile served object parameters and attachments');

    const text = resultText(await vscode.lm.invokeTool('agentRuns_readRun', { input: { agentId: id, maxMessages: 20 }, toolInvocationToken: undefined }, none));
    const firstParams = objectParams[0].toolParameters as Record<string, unknown>;
    const firstKey = Object.keys(firstParams)[0];
    assert.ok(text.includes(`"${firstKey}":`), `the read tool shows the tool's object parameters (${firstKey}):\n${text}`);
    for (const role of ['thinking', 'system']) {
      if ((served.history ?? []).some((m) => m.role === role)) assert.match(text, new RegExp(role, 'i'), `the ${role} message is named`);
    }
    const seqs = await api.transcriptSequences(id);
    assert.equal(seqs.length, served.history?.length, 'every message the service returned is in the saved transcript');
  });

  it('a run on a retired model (readable, no longer offered to start with) is tracked and shows its model', async () => {
    assert.equal(await vscode.commands.executeCommand('agentRuns.trackRun', 'agt_seed_retired_model'), true);
    const record = await waitFor('the retired-model run to be read', () => api.ledger().get('agt_seed_retired_model')?.model);
    assert.equal(record, 'anthropic/claude-sonnet-4');
  });

  it('a code review\'s conversation, tracked by ID, is labelled as one; a follow-up is refused before any POST', async () => {
    const review = (await admin(context!, 'POST', '/code-review-conversations', { title: 'Integration: review' })) as { agentId: string; reviewId: string };
    assert.equal(await vscode.commands.executeCommand('agentRuns.trackRun', review.agentId), true);
    const kind = await waitFor('the review to be read', () => api.ledger().get(review.agentId)?.kind);
    assert.equal(kind, 'code_review');
    const { next } = await postsSince(context!, 0);
    const input = { agentId: review.agentId, prompt: 'Integration: and fix it' };
    const text = resultText(await api.assistant.tool('agentRuns_sendFollowUp')!.invoke({ input, toolInvocationToken: undefined }, none));
    assert.equal(text, 'Not done: this conversation (a code review) does not take follow-ups. Start a new run instead.');
    assert.deepEqual((await postsSince(context!, next)).posts, [], 'nothing posted');
  });

  it('409 at the workspace\'s concurrent-agent limit: the second start says so and is not listed; the first is', async () => {
    // The premise, made here: no other run of the workspace active, then ours held active
    // (an admin-forced status stops a run progressing), then a limit of one.
    const activeOthers = async (): Promise<string[] | undefined> => {
      const { agents } = (await admin(context!, 'GET', '/agents')) as { agents: { agentId: string; workspaceId?: string; status?: string }[] };
      const active = agents.filter((a) => a.workspaceId === 'ws_acme' && (a.status === 'queued' || a.status === 'running'));
      return active.length === 0 ? [] : undefined;
    };
    await waitFor('the workspace\'s other runs to finish', () => activeOthers());
    const first = await start('Integration: the one run allowed');
    try {
      await admin(context!, 'PATCH', `/agents/${first}`, { status: 'running' });
      await admin(context!, 'PATCH', '/workspaces/ws_acme', { concurrentAgentLimit: 1 });
      const before = api.ledger().all().length;
      const { next } = await postsSince(context!, 0);
      const text = resultText(await api.assistant.tool('agentRuns_startRun')!.invoke({ input: { prompt: 'Integration: one too many' }, toolInvocationToken: undefined }, none));
      assert.match(text, /^Not done: The workspace is running as many agent runs as its plan allows\. Wait for a run to finish/);
      assert.deepEqual((await postsSince(context!, next)).posts.map((p) => p.status), [409], 'one POST, refused');
      assert.equal(api.ledger().all().length, before, 'the refused start is not listed, not even as "may have started"');
      assert.ok(api.ledger().get(first));
    } finally {
      await admin(context!, 'PATCH', '/workspaces/ws_acme', { concurrentAgentLimit: null });
      await admin(context!, 'PATCH', `/agents/${first}`, { status: 'completed' });
    }
    await finished(first);
  });
});
