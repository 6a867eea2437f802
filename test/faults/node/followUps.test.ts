// Follow-ups and starts sent while the page is rebuilt, the window reloads, or the person clicks
// twice: the extension's own send locks (src/run/followUpSends.ts, src/run/unconfirmedStarts.ts)
// with the real client against the emulator (real clock, so the service's timestamps and the
// extension's agree as they do in production). The emulator's request log counts the POSTs and
// its state counts what arrived; a "reload" is the old client torn down and a new lock built
// over the same stored state, as a new extension host does.
import * as assert from 'node:assert/strict';
import { createClient } from '../../../src/api/client';
import type { AgentRunsApi } from '../../../src/api/contract';
import type { FollowUpAck } from '../../../src/api/types';
import { FollowUpSends, type SendMemento } from '../../../src/run/followUpSends';
import { UnconfirmedStarts } from '../../../src/run/unconfirmedStarts';
import { startEmulator, type Emulator } from '../../emulator/index';
import { adminOk } from '../../emulator/testing';
import { registerEmulatorTokens, scenario, type Scenario } from '../registry';

interface Storage extends SendMemento {
  /** The workspace state as a new extension host finds it after the old one died now. */
  afterReload(): Storage;
}

function memento(data = new Map<string, unknown>()): Storage {
  return {
    get: <T>(key: string): T | undefined => data.get(key) as T | undefined,
    update: (key: string, value: unknown) => {
      data.set(key, value === undefined ? undefined : JSON.parse(JSON.stringify(value)));
      return Promise.resolve();
    },
    afterReload: () => memento(new Map(data)),
  };
}

/** Long enough that a held answer is cut by the "reload", not by the client's own timeout. */
const PATIENT = { connectMs: 2_000, headersMs: 20_000, bodyMs: 5_000 };

async function waitFor(what: string, probe: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  while (!(await probe())) {
    if (Date.now() - started > timeoutMs) {
      throw new Error(`Timed out waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('faults: a follow-up or a start is POSTed once, whatever the page, the window or the person does', function () {
  this.timeout(30_000);
  let emu: Emulator;
  const clients: AgentRunsApi[] = [];

  before(async () => {
    emu = await startEmulator({ stepMs: 20 });
    registerEmulatorTokens(emu.tokens, emu.baseUrl);
  });
  beforeEach(() => emu.reset());
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.dispose()));
  });
  after(async () => {
    await emu.close();
  });

  function client(timeouts = PATIENT): AgentRunsApi {
    const c = createClient({ baseUrl: emu.baseUrl, token: emu.tokens.default, timeouts });
    clients.push(c);
    return c;
  }

  /** A run started elsewhere and held as finished, so a follow-up re-opens it. */
  async function finishedRun(): Promise<string> {
    const run = await client().startAgent({ appId: 'app_todo', prompt: 'Write the release notes', model: 'hosted/fast' });
    await adminOk(emu.adminUrl, 'PATCH', `/agents/${encodeURIComponent(run.agentId)}`, { status: 'completed' });
    return run.agentId;
  }

  function followUpPosts(agentId: string): number {
    return emu.requests.filter((r) => r.method === 'POST' && r.path.endsWith(`/agents/${agentId}/messages`)).length;
  }

  /** The follow-up as the service holds it: in the history or queued. */
  async function arrived(agentId: string, prompt: string): Promise<number> {
    const agent = (await adminOk(emu.adminUrl, 'GET', `/agents/${encodeURIComponent(agentId)}`)) as { history: { role: string; content: string }[]; pendingTurns: { prompt: string }[] };
    return agent.history.filter((m) => m.role === 'user' && m.content === prompt).length + agent.pendingTurns.filter((t) => t.prompt === prompt).length;
  }

  /** What the extension does after a reload: read the run until its history settles the uncertain send. */
  async function settle(sends: FollowUpSends, agentId: string): Promise<void> {
    const reader = client();
    await waitFor('the history to show the follow-up', async () => {
      sends.observe(agentId, (await reader.getAgent(agentId)).history);
      return sends.get(agentId) === undefined;
    });
  }

  function post(c: AgentRunsApi, agentId: string): (input: { prompt: string }) => Promise<FollowUpAck> {
    return (input) => c.sendFollowUp(agentId, { prompt: input.prompt });
  }

  function count(s: Scenario, agentId: string, asked: number, detail: string): void {
    s.duplicatePosts(followUpPosts(agentId) - asked, detail);
  }

  scenario('no-duplicates', 'double submit (a double click, Enter twice, the tree button during "Sending…"): one POST', async (s) => {
    const id = await finishedRun();
    const sends = new FollowUpSends(memento());
    const c = client();
    emu.inject({ method: 'POST', path: `^/agents/${id}/messages$`, passThrough: true, delayMs: 300, times: 1 });
    const prompt = 'Also add the migration guide';
    const clicks = [sends.send(id, { prompt }, post(c, id)), sends.send(id, { prompt }, post(c, id)), sends.send(id, { prompt }, post(c, id))];
    const outcomes = await Promise.all(clicks);
    count(s, id, 1, 'follow-up POSTs for three clicks on one Send');
    assert.deepEqual(outcomes.map((o) => o.kind), ['sent', 'busy', 'busy']);
    assert.equal(await arrived(id, prompt), 1);
  });

  scenario('no-duplicates', 'the tab hidden and shown during a send: the rebuilt page is locked ("Sending…"), its Send sends nothing', async (s) => {
    const id = await finishedRun();
    const sends = new FollowUpSends(memento());
    const c = client();
    emu.inject({ method: 'POST', path: `^/agents/${id}/messages$`, passThrough: true, delayMs: 800, times: 1 });
    const prompt = 'Now bump the version';
    const first = sends.send(id, { prompt }, post(c, id));
    await waitFor('the POST to reach the service', () => followUpPosts(id) === 1);
    // The page was torn down and is built again from `init`: it gets the send state, not a free composer.
    const rebuilt = sends.get(id);
    assert.equal(rebuilt?.state, 'sending', 'the rebuilt page would not be locked');
    assert.equal(rebuilt?.prompt, prompt);
    assert.equal((await sends.send(id, { prompt }, post(c, id))).kind, 'busy');
    assert.equal((await first).kind, 'sent');
    count(s, id, 1, 'follow-up POSTs after the page was rebuilt mid-send');
    assert.equal(sends.get(id), undefined, 'the composer is free again after the acknowledgement');
    assert.equal(await arrived(id, prompt), 1);
  });

  for (const c of [
    { title: 'the answer held after the service took it (reload mid-POST)', rule: { passThrough: true, delayMs: 15_000 } },
    { title: 'the connection cut after the service took it', rule: { passThrough: true, reset: true } },
  ]) {
    scenario('no-duplicates', `${c.title}, and a reload: "may have been sent", nothing resends it, the history settles it`, async (s) => {
      const id = await finishedRun();
      const state = memento();
      const before = new FollowUpSends(state);
      const old = client();
      emu.inject({ method: 'POST', path: `^/agents/${id}/messages$`, ...c.rule, times: 1 });
      const prompt = 'Please also update the changelog';
      const sending = before.send(id, { prompt }, post(old, id));
      await waitFor('the POST to reach the service', () => followUpPosts(id) === 1);
      // The window reloads: what the new extension host finds is what was stored until now;
      // the old one and its client are gone.
      const after = new FollowUpSends(state.afterReload());
      await old.dispose();
      await sending;
      assert.equal(after.get(id)?.state, 'uncertain');
      const again = await after.send(id, { prompt }, post(client(), id));
      assert.equal(again.kind, 'busy', 'an uncertain follow-up was sent again without the person asking');
      await settle(after, id);
      count(s, id, 1, 'follow-up POSTs across the reload');
      assert.equal(await arrived(id, prompt), 1, 'the follow-up is on the service once');
    });
  }

  scenario('no-duplicates', 'a follow-up that did not arrive (503 before the service took it) stays "may have been sent" through reads; Resend sends exactly one more', async (s) => {
    const id = await finishedRun();
    const sends = new FollowUpSends(memento());
    const c = client();
    emu.inject({ method: 'POST', path: `^/agents/${id}/messages$`, status: 503, times: 1 });
    const prompt = 'Run the linter too';
    const failed = await sends.send(id, { prompt }, post(c, id));
    assert.equal(failed.kind === 'failed' && failed.mayHaveArrived, true);
    for (let i = 0; i < 3; i++) {
      sends.observe(id, (await c.getAgent(id)).history);
    }
    assert.equal(sends.get(id)?.state, 'uncertain', 'settled without the prompt in the history');
    count(s, id, 1, 'follow-up POSTs before the person chose to resend');
    assert.equal((await sends.send(id, { prompt }, post(c, id), { resend: true })).kind, 'sent');
    count(s, id, 2, 'follow-up POSTs for one send and one deliberate resend');
    assert.equal(await arrived(id, prompt), 1);
  });

  scenario('no-duplicates', 'a start cut by a reload mid-POST: shown as one that may have reached the service, never re-sent', async (s) => {
    const state = memento();
    const before = new UnconfirmedStarts(state);
    const old = client();
    emu.inject({ method: 'POST', path: '^/agents$', passThrough: true, delayMs: 15_000, times: 1 });
    const prompt = `Rename the billing module ${Date.now()}`;
    before.begin({ appId: 'app_todo', prompt, model: 'hosted/fast', baseUrl: emu.baseUrl });
    const sending = old.startAgent({ appId: 'app_todo', prompt, model: 'hosted/fast' }).catch(() => undefined);
    const starts = (): number => emu.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/agents')).length;
    await waitFor('the POST to reach the service', () => starts() === 1);
    const after = new UnconfirmedStarts(state.afterReload());
    await old.dispose();
    await sending;
    const shown = after.uncertain();
    assert.equal(shown.length, 1, 'the start that may have reached the service is not shown');
    assert.equal(shown[0].prompt, prompt);
    s.duplicatePosts(starts() - 1, 'POST /agents across the reload');
    const all = (await adminOk(emu.adminUrl, 'GET', '/agents')) as { agents: unknown[] };
    assert.equal(all.agents.filter((a) => JSON.stringify(a).includes(prompt)).length, 1, 'the run exists once');
  });
});
