// The extension glue in the extension host: the packaged extension against the service
// emulator. Runs are started through the emulator's real API, followed by the extension's own
// poller, and watched through the small test API activate() returns (never the token).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { AgentRunsTestApi } from '../../src/extension';
import type { LedgerChange } from '../../src/run/common/ledger/ledger';
import { SEED_TOKEN_FILE_ENV, readTestContext, type IntegrationTestContext } from '../support/testContext';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function waitFor<T>(what: string, probe: () => T | undefined | false, timeoutMs = 20_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) {
      return value;
    }
    if (Date.now() - started > timeoutMs) {
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await sleep(100);
  }
}

interface LoggedRequest {
  method: string;
  path: string;
  status?: number;
  headers: Record<string, string>;
}

class EmulatorAdmin {
  constructor(private readonly context: IntegrationTestContext) {}

  private get emu(): NonNullable<IntegrationTestContext['emulator']> {
    assert.ok(this.context.emulator, 'no emulator in the test context');
    return this.context.emulator;
  }

  async startRun(prompt: string, token = this.emu.tokens.default): Promise<string> {
    const res = await fetch(`${this.emu.baseUrl}/agents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ appId: 'app_todo', prompt, model: 'hosted/fast' }),
    });
    assert.equal(res.status < 300, true, `POST /agents answered ${res.status}`);
    const body = (await res.json()) as { agentId: string; status: string };
    assert.equal(body.status, 'queued');
    return body.agentId;
  }

  async fault(rule: Record<string, unknown>): Promise<void> {
    const res = await fetch(`${this.context.emulator?.adminUrl}/faults`, { method: 'POST', body: JSON.stringify(rule), headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 201, await res.text());
  }

  async clearFaults(): Promise<void> {
    await fetch(`${this.context.emulator?.adminUrl}/faults`, { method: 'DELETE' });
  }

  /**
   * Waits until the emulator has started the run: its first tick appends the prompt as the
   * user message, which is where a tracked run's label comes from.
   */
  async waitUntilStarted(agentId: string, timeoutMs = 20_000): Promise<void> {
    const started = Date.now();
    for (;;) {
      const res = await fetch(`${this.context.emulator?.adminUrl}/agents/${encodeURIComponent(agentId)}`);
      assert.equal(res.status, 200, `admin GET /agents/${agentId} answered ${res.status}`);
      const agent = (await res.json()) as { history?: { role?: string }[] };
      if (agent.history?.some((m) => m.role === 'user')) {
        return;
      }
      if (Date.now() - started > timeoutMs) {
        throw new Error(`Timed out after ${timeoutMs} ms waiting for the emulator to start ${agentId}`);
      }
      await sleep(20);
    }
  }

  /** Forces the run's status on the emulator, which also halts its progression (admin PATCH). */
  async setStatus(agentId: string, status: string): Promise<void> {
    const res = await fetch(`${this.context.emulator?.adminUrl}/agents/${encodeURIComponent(agentId)}`, {
      method: 'PATCH',
      body: JSON.stringify({ status }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.status, 200, await res.text());
  }

  async patch(agentId: string, fields: Record<string, unknown>): Promise<void> {
    const res = await fetch(`${this.context.emulator?.adminUrl}/agents/${encodeURIComponent(agentId)}`, {
      method: 'PATCH',
      body: JSON.stringify(fields),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.status, 200, await res.text());
  }

  async settings(patch: Record<string, unknown>): Promise<void> {
    const res = await fetch(`${this.context.emulator?.adminUrl}/settings`, { method: 'PATCH', body: JSON.stringify(patch), headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 200, await res.text());
  }

  async appendMessage(agentId: string, message: Record<string, unknown>): Promise<void> {
    const res = await fetch(`${this.context.emulator?.adminUrl}/agents/${encodeURIComponent(agentId)}/messages`, { method: 'POST', body: JSON.stringify(message), headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 201, await res.text());
  }

  async sequences(agentId: string): Promise<number[]> {
    const res = await fetch(`${this.context.emulator?.adminUrl}/agents/${encodeURIComponent(agentId)}`);
    return ((await res.json()) as { history: { sequence: number }[] }).history.map((m) => m.sequence);
  }

  async followUp(agentId: string, prompt: string): Promise<void> {
    const res = await fetch(`${this.context.emulator?.baseUrl}/agents/${encodeURIComponent(agentId)}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${this.emu.tokens.default}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt }),
    });
    assert.equal(res.status < 300, true, `POST /messages answered ${res.status}`);
  }

  async requestCount(): Promise<number> {
    const res = await fetch(`${this.context.emulator?.adminUrl}/requests?since=0`);
    return ((await res.json()) as { next: number }).next;
  }

  async requestsSince(n: number): Promise<LoggedRequest[]> {
    const res = await fetch(`${this.context.emulator?.adminUrl}/requests?since=${n}`);
    return ((await res.json()) as { requests: LoggedRequest[] }).requests;
  }
}

/**
 * Reads the run now with the poller's one-off read (`pollNow`, which never starts following a
 * finished run again, unlike `burst`) until `status` is in the ledger.
 */
async function readUntilStatus(api: AgentRunsTestApi, agentId: string, status: string, timeoutMs = 20_000): Promise<void> {
  const started = Date.now();
  for (;;) {
    await api.poller.pollNow(agentId);
    if (api.ledger().get(agentId)?.status === status) {
      return;
    }
    if (Date.now() - started > timeoutMs) {
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${agentId} to read as ${status} (it is ${api.ledger().get(agentId)?.status ?? 'not in the ledger'})`);
    }
    await sleep(100);
  }
}

/** Stores `token` the way the launcher does (seed file), and waits until the extension took it. */
async function seed(api: AgentRunsTestApi, token: string): Promise<void> {
  const file = process.env[SEED_TOKEN_FILE_ENV];
  assert.ok(file, `${SEED_TOKEN_FILE_ENV} is not set in the extension host`);
  fs.writeFileSync(file, token, { mode: 0o600 });
  assert.equal(await api.seedToken(), true);
  assert.equal(fs.existsSync(file), false, 'the seed file was not deleted');
}

describe('Runs: ledger, polling, alerts, 401', function () {
  this.timeout(60_000);
  const context = readTestContext();
  let api: AgentRunsTestApi;
  let admin: EmulatorAdmin;

  before(async function () {
    if (!context?.emulator) {
      this.skip();
    }
    admin = new EmulatorAdmin(context);
    const ext = vscode.extensions.getExtension<AgentRunsTestApi>(context.extensionId);
    assert.ok(ext);
    api = await ext.activate();
    await vscode.workspace.getConfiguration('agentRuns').update('notifications', 'all', vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration('agentRuns.polling').update('panelSeconds', 1, vscode.ConfigurationTarget.Global);
  });

  afterEach(async () => {
    await admin?.clearFaults();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('starts signed in from the seed file, for the emulator base URL, without network at activation', async () => {
    await waitFor('the token lookup', () => api.connection().signedIn);
    assert.equal(api.connection().baseUrl, context?.emulator?.baseUrl);
    assert.ok(api.activationMs < 500, `activate() took ${api.activationMs} ms`);
  });

  it('tracks a run by ID and follows it queued → running → completed, then notifies once', async () => {
    const agentId = await admin.startRun('Fix the login bug [[slow]]');
    // The emulator's clock is real (30 ms steps): left alone, the run can finish before the
    // extension's first reads, or while the panel Track Run opens is still in front of the
    // user (who is then, rightly, not notified). So the test moves the run itself: the
    // emulator's admin PATCH sets the status and halts the run's own progression (once the
    // run has its user message: the ledger takes the prompt from it).
    await admin.waitUntilStarted(agentId);
    await admin.setStatus(agentId, 'queued');
    const seen: string[] = [];
    const sub = api.ledger().onDidChange((c: LedgerChange) => {
      const r = c.agentIds.includes(agentId) ? api.ledger().get(agentId) : undefined;
      if (r && seen[seen.length - 1] !== r.status) {
        seen.push(r.status);
      }
    });
    // Counted for this run only: a run of another test may finish meanwhile and be announced.
    const shownBefore = api.notificationsFor(agentId);
    try {
      assert.equal(await vscode.commands.executeCommand('agentRuns.trackRun', agentId), true);
      assert.equal(api.ledger().get(agentId)?.source, 'tracked');
      assert.equal(api.ledger().get(agentId)?.status, 'queued');
      assert.equal(api.poller.isTracked(agentId), true, 'a queued run is not polled');
      // Track Run opened the run's panel. Not looking at it: the completion must be announced.
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await admin.setStatus(agentId, 'running');
      await readUntilStatus(api, agentId, 'running');
      assert.equal(api.poller.isTracked(agentId), true, 'a running run is not polled');
      assert.equal(api.notificationsFor(agentId), shownBefore, 'notified before the run finished');
      await admin.setStatus(agentId, 'completed');
      await readUntilStatus(api, agentId, 'completed');
    } finally {
      sub.dispose();
    }
    assert.deepEqual(seen, ['queued', 'running', 'completed']);
    assert.equal(api.poller.isTracked(agentId), false, 'a finished run is still polled');
    assert.equal(api.notificationsFor(agentId), shownBefore + 1, 'the completion was not announced');
    // Once: reading the finished run again (a refresh) announces nothing more.
    await api.poller.pollNow(agentId);
    assert.equal(api.notificationsFor(agentId), shownBefore + 1, 'the completion was announced twice');
    assert.equal(api.poller.isTracked(agentId), false, 'a refresh made a finished run polled again');
    const record = api.ledger().get(agentId);
    assert.equal(record?.prompt, 'Fix the login bug [[slow]]');
    assert.equal(record?.appId, 'app_todo');
    assert.equal(record?.model, 'hosted/fast');
  });

  it('tracks a run that already finished without announcing it', async () => {
    const agentId = await admin.startRun('Rename the config module');
    await admin.setStatus(agentId, 'completed');
    const shownBefore = api.notificationsFor(agentId);
    assert.equal(await vscode.commands.executeCommand('agentRuns.trackRun', agentId), true);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    assert.equal(api.ledger().get(agentId)?.status, 'completed');
    assert.equal(api.poller.isTracked(agentId), false, 'a finished run is polled');
    await api.poller.pollNow(agentId);
    assert.equal(api.notificationsFor(agentId), shownBefore, 'a run that was already finished was announced');
    await vscode.commands.executeCommand('agentRuns.removeRun', agentId);
  });

  it('sends the token only as a bearer header to the configured origin and never polls finished runs', async () => {
    const before = await admin.requestCount();
    const agentId = await admin.startRun('Add a README');
    assert.equal(await vscode.commands.executeCommand('agentRuns.trackRun', agentId), true);
    // Not burst(): on a run that finished meanwhile it would follow the run again for a while.
    await readUntilStatus(api, agentId, 'completed');
    await sleep(2_500);
    const reads = (await admin.requestsSince(before)).filter((r) => r.method === 'GET' && r.path.includes(agentId));
    assert.ok(reads.length >= 1);
    for (const r of reads) {
      assert.match(r.headers.authorization ?? '', /^Bearer agr_/);
      assert.match(r.headers['user-agent'] ?? '', /agent-runs-vscode\//);
    }
    const last = reads.length;
    await sleep(2_500);
    const later = (await admin.requestsSince(before)).filter((r) => r.method === 'GET' && r.path.includes(agentId));
    assert.equal(later.length, last, 'a completed run was read again');
  });

  it('a 401 while polling prompts once, pauses polling, and a new token resumes it', async () => {
    const a = await admin.startRun('First long task [[slow]]');
    const b = await admin.startRun('Second long task [[slow]]');
    // Keep both runs unfinished as far as the extension can tell.
    await admin.fault({ method: 'GET', path: `^/agents/(${a}|${b})$`, extraFields: { status: 'running' }, times: 0 });
    assert.equal(await vscode.commands.executeCommand('agentRuns.trackRun', a), true);
    assert.equal(await vscode.commands.executeCommand('agentRuns.trackRun', b), true);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const promptsBefore = api.unauthorizedPrompts;

    // The token stops working (as if revoked): every read is a 401.
    await seed(api, context!.emulator.tokens.revoked);
    api.poller.burst(a);
    api.poller.burst(b);
    await waitFor('polling to pause', () => api.poller.paused && api.connection().tokenRejected);
    await sleep(3_000);
    assert.equal(api.unauthorizedPrompts, promptsBefore + 1, 'one prompt, not one per run');
    const quietFrom = await admin.requestCount();
    await sleep(2_500);
    assert.deepEqual((await admin.requestsSince(quietFrom)).filter((r) => r.method === 'GET'), [], 'polling went on after the 401');
    assert.ok(api.poller.isTracked(a) && api.poller.isTracked(b), 'the runs were dropped instead of paused');

    // A new token: polling resumes without another prompt.
    await seed(api, context!.emulator.tokens.default);
    await waitFor('polling to resume', () => !api.poller.paused && !api.connection().tokenRejected);
    const resumedFrom = await admin.requestCount();
    await sleep(2_000);
    const reads = (await admin.requestsSince(resumedFrom)).filter((r) => r.method === 'GET');
    assert.ok(reads.some((r) => r.status === 200), 'no successful read after the new token');
    assert.equal(api.unauthorizedPrompts, promptsBefore + 1);
    await admin.clearFaults();
    await vscode.commands.executeCommand('agentRuns.removeRun', a);
    await vscode.commands.executeCommand('agentRuns.removeRun', b);
    assert.equal(api.poller.isTracked(a), false);
    assert.equal(api.ledger().has(b), false);
  });

  it('marks runs stale while the service fails, goes offline once, and recovers', async () => {
    const agentId = await admin.startRun('Tidy the imports [[slow]]');
    // The service fails from the very first poll on (the emulator may still be busy with
    // earlier runs, so the run's own state is whatever the first read saw).
    await admin.fault({ method: 'GET', path: `^/agents/${agentId}$`, extraFields: { status: 'running' }, times: 1 });
    await admin.fault({ method: 'GET', path: '^/agents/', status: 503, body: '{"error":"maintenance"}', times: 0 });
    assert.equal(await vscode.commands.executeCommand('agentRuns.trackRun', agentId), true);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    assert.equal(api.ledger().get(agentId)?.status, 'running');
    api.poller.burst(agentId);
    await waitFor('the run to be marked stale', () => api.ledger().get(agentId)?.pollError);
    await waitFor('the offline state', () => !api.connection().online, 30_000);
    assert.equal(api.ledger().get(agentId)?.status, 'running', 'the last known state was not kept');
    await admin.clearFaults();
    await vscode.commands.executeCommand('agentRuns.refreshRun', agentId);
    await waitFor('the service to be reachable again', () => api.connection().online, 30_000);
    await waitFor('the stale mark to clear', () => api.ledger().get(agentId)?.pollError === undefined);
    await vscode.commands.executeCommand('agentRuns.removeRun', agentId);
  });

  it('clears finished runs and keeps active ones', async () => {
    const done = await admin.startRun('Quick one');
    assert.equal(await vscode.commands.executeCommand('agentRuns.trackRun', done), true);
    api.poller.burst(done);
    await waitFor('the run to finish', () => api.ledger().get(done)?.status === 'completed');
    const cleared = await vscode.commands.executeCommand<number>('agentRuns.clearFinished');
    assert.ok(cleared >= 1);
    assert.equal(api.ledger().has(done), false);
    assert.ok(api.ledger().all().every((r) => r.status !== 'completed' && r.status !== 'error'));
  });

  it('capped histories (default 5): a run writing 40 messages between two polls loses none, and the label is what was started', async () => {
    await admin.settings({ historyDefault: 5, historyMax: 500 });
    try {
      const agentId = await admin.startRun('Write many notes [[slow]]');
      await admin.waitUntilStarted(agentId);
      await admin.setStatus(agentId, 'running');
      assert.equal(await vscode.commands.executeCommand('agentRuns.trackRun', agentId), true);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < 40; i++) {
          await admin.appendMessage(agentId, i % 2 === 0 ? { role: 'tool', content: `out ${round}.${i}`, toolName: 'read_file', toolParameters: { path: `f${i}` } } : { role: 'assistant', content: `note ${round}.${i}` });
        }
        await api.poller.pollNow(agentId);
      }
      const whole = await admin.sequences(agentId);
      const have = new Set(await api.transcriptSequences(agentId));
      assert.deepEqual(whole.filter((q) => !have.has(q)), [], 'messages lost between polls');
      assert.equal(api.ledger().get(agentId)?.prompt, 'Write many notes [[slow]]');
      await vscode.commands.executeCommand('agentRuns.removeRun', agentId);
    } finally {
      await admin.settings({ historyDefault: null, historyMax: null });
    }
  });

  it('a cancelled run with completedAt is finished: not polled, not active, cleared; without completedAt it stays followed', async () => {
    const cancelled = await admin.startRun('Cancel me [[slow]]');
    const paused = await admin.startRun('Pause me [[slow]]');
    await admin.waitUntilStarted(cancelled);
    await admin.waitUntilStarted(paused);
    await admin.setStatus(cancelled, 'running');
    await admin.setStatus(paused, 'running');
    assert.equal(await vscode.commands.executeCommand('agentRuns.trackRun', cancelled), true);
    assert.equal(await vscode.commands.executeCommand('agentRuns.trackRun', paused), true);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const shownBefore = api.notificationsFor(cancelled);
    await admin.patch(cancelled, { status: 'cancelled', completedAt: 'now' });
    await admin.patch(paused, { status: 'paused', completedAt: null });
    await readUntilStatus(api, cancelled, 'cancelled');
    await readUntilStatus(api, paused, 'paused');
    assert.equal(api.poller.isTracked(cancelled), false, 'a cancelled run with completedAt is still polled');
    assert.equal(api.poller.isTracked(paused), true, 'a paused run without completedAt is no longer followed');
    assert.ok(!api.ledger().active().some((r) => r.agentId === cancelled), 'counted active');
    assert.equal(api.notificationsFor(cancelled), shownBefore + 1, 'its end was not announced once');
    await vscode.commands.executeCommand<number>('agentRuns.clearFinished');
    assert.equal(api.ledger().has(cancelled), false, 'Clear Finished kept it');
    assert.equal(api.ledger().has(paused), true);
    await vscode.commands.executeCommand('agentRuns.removeRun', paused);
  });

  it('a follow-up on a finished run: stale reads are no completion, the next end is announced once', async () => {
    const agentId = await admin.startRun('First turn');
    await admin.waitUntilStarted(agentId);
    await admin.patch(agentId, { status: 'completed', completedAt: 'now', updatedAt: 'now' });
    assert.equal(await vscode.commands.executeCommand('agentRuns.trackRun', agentId), true);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    assert.equal(api.poller.isTracked(agentId), false);
    const shownBefore = api.notificationsFor(agentId);
    // Acknowledged, but the service still shows the finished turn: every read is stale.
    api.afterPost({ kind: 'followUp', agentId, prompt: 'Second turn', ack: { agentId, status: 'queued' } });
    await sleep(4_000);
    assert.equal(api.notificationsFor(agentId), shownBefore, 'a stale read was announced as a completion');
    assert.equal(api.poller.isTracked(agentId), true, 'polling stopped on a stale read');
    assert.ok(api.ledger().active().some((r) => r.agentId === agentId), 'the run is not active again');
    // The service takes the turn and ends it: one notice.
    await admin.followUp(agentId, 'Second turn');
    await waitFor('the follow-up to show', () => (api.ledger().get(agentId)?.acts ?? []).some((a) => a.arrivedSeq !== undefined || a.settledAt !== undefined), 30_000);
    await waitFor('the second turn to end', () => api.notificationsFor(agentId) === shownBefore + 1, 30_000);
    await sleep(2_000);
    assert.equal(api.notificationsFor(agentId), shownBefore + 1);
    await vscode.commands.executeCommand('agentRuns.removeRun', agentId);
  });

  it('a run command from the palette is about the run whose panel is in front; with none, it asks which run', async () => {
    const shown = await admin.startRun('Panel in front');
    const other = await admin.startRun('Panel behind');
    const isRunPanel = (tab: vscode.Tab | undefined) => tab?.input instanceof vscode.TabInputWebview && tab.input.viewType.endsWith('agentRuns.run');
    assert.equal(await vscode.commands.executeCommand('agentRuns.trackRun', other), true);
    assert.equal(await vscode.commands.executeCommand('agentRuns.trackRun', shown), true);
    // Track Run opens each run's panel: the second one opened is in front. The panel hears that
    // it is active (its view state) in a message that can come after the tab's: on VS Code 1.139 a command
    // run between the two asked which run.
    await waitFor('both panels, one in front', () => isRunPanel(vscode.window.tabGroups.activeTabGroup.activeTab)
      && vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter(isRunPanel).length === 2 && api.activeRun() === shown);
    // Copy Link (no argument, as from the palette) answers with the link of the run in front.
    const link = await Promise.race([vscode.commands.executeCommand<string | undefined>('agentRuns.copyLink'), sleep(5_000).then(() => 'asked')]);
    assert.ok(typeof link === 'string' && link !== 'asked', 'Copy Link asked for a run while a run panel was in front');
    assert.ok(link.includes(shown) && !link.includes(other), `the link is not the shown run's: ${link}`);
    // No run panel in front: the command asks (a quick pick), and Escape ends it with nothing copied.
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const asked = await Promise.race([vscode.commands.executeCommand<string | undefined>('agentRuns.copyLink'), sleep(1_500).then(() => 'asked')]);
    assert.equal(asked, 'asked', 'Copy Link answered without asking which run');
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    await vscode.commands.executeCommand('agentRuns.removeRun', shown);
    await vscode.commands.executeCommand('agentRuns.removeRun', other);
  });

  it('refuses a run ID the service does not know, and adds nothing', async () => {
    const count = api.ledger().all().length;
    // The error notification is shown; the command resolves false without waiting for it.
    const result = await Promise.race([
      vscode.commands.executeCommand<boolean>('agentRuns.trackRun', 'agt_does_not_exist'),
      sleep(3_000).then(() => 'timeout'),
    ]);
    assert.notEqual(result, true);
    assert.equal(api.ledger().all().length, count);
  });
});
