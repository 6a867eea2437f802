// "Start Agent Run" sent while the connection or the service fails after the request may have
// arrived: the launch flow's own submit logic (src/launch/common/submit.ts) with the real client
// against the emulator. The emulator's request log counts the POSTs and its state counts the
// runs: the request is sent once, the run exists once, the person is told it may exist and
// offered "Track Run by ID", and nothing is repeated unless the person clicks Retry.
import * as assert from 'node:assert/strict';
import { createClient } from '../../../src/api/client';
import type { AgentRunsApi } from '../../../src/api/contract';
import { validateStartAgentRequest } from '../../../src/api/validate';
import type { ExternalAction, FailureActionId, StartFailure } from '../../../src/run/common/startFailure';
import { emptyForm } from '../../../src/launch/common/form';
import { submitLaunch, type SubmitEnv, type SubmitUi } from '../../../src/launch/common/submit';
import { plainL10n } from '../../../src/base/common/l10n';
import type { Emulator, FaultRule } from '../../emulator/index';
import { scenario } from '../registry';
import { admin, useEmulator } from '../support/emulatorFixture';
import { FAST_TIMEOUTS } from '../support/pipeline';

/** The person: clicks what the script says on each failure message, and remembers what was shown. */
class Person implements SubmitUi {
  readonly shown: StartFailure[] = [];
  readonly commands: ExternalAction[] = [];
  constructor(private readonly clicks: (FailureActionId | undefined)[]) {}
  confirmAllowEdits(): Promise<boolean> {
    return Promise.resolve(true);
  }
  askEmail(): Promise<string | undefined> {
    return Promise.resolve(undefined);
  }
  showFailure(f: StartFailure): Promise<FailureActionId | undefined> {
    this.shown.push(f);
    return Promise.resolve(this.clicks.shift());
  }
  runCommand(a: ExternalAction): Promise<void> {
    this.commands.push(a);
    return Promise.resolve();
  }
}

function env(client: AgentRunsApi, token: string): SubmitEnv {
  return {
    l10n: plainL10n,
    validate: (r) => validateStartAgentRequest(r),
    start: (r) => client.startAgent(r),
    modelNeedsEmail: () => false,
    rememberModelNeedsEmail: () => Promise.resolve(),
    defaultEmail: () => Promise.resolve(undefined),
    secrets: () => Promise.resolve([token]),
  };
}

async function runsWithPrompt(e: Emulator, prompt: string): Promise<number> {
  const all = (await admin(e, 'GET', '/agents')) as { agents: { prompt?: string; history?: { content: string }[]; queuedPrompts?: string[] }[] };
  return all.agents.filter((a) => JSON.stringify(a).includes(prompt)).length;
}

interface StartCase {
  title: string;
  rule: Omit<FaultRule, 'method' | 'path'>;
  /** What the failure must say. */
  says: RegExp;
}

const CASES: StartCase[] = [
  { title: 'the connection resets after the service took the request', rule: { passThrough: true, reset: true }, says: /connection broke/ },
  { title: 'the service creates the run but answers after the headers timeout', rule: { passThrough: true, delayMs: 4_000 }, says: /did not answer in time/ },
  { title: 'the service creates the run, then a proxy answers 502', rule: { passThrough: true, status: 502 }, says: /had an error \(502\)/ },
  { title: 'the service creates the run and the answer is cut in half', rule: { truncate: true }, says: /could not be read/ },
  { title: 'the service creates the run and a proxy sends an HTML page with 200', rule: { passThrough: true, html: true, status: 200 }, says: /could not be read/ },
  { title: 'the service creates the run and the body stalls (body timeout)', rule: { bodyDelayMs: 4_000 }, says: /did not answer in time/ },
];

describe('faults: a start that may have reached the service is never sent twice on its own', function () {
  this.timeout(30_000);
  const emu = useEmulator();

  for (const c of CASES) {
    scenario('no-duplicates', `${c.title}: one POST, one run, "may exist" + Track Run by ID, form kept`, async (s) => {
      const e = emu();
      const client = createClient({ baseUrl: e.baseUrl, token: e.tokens.default, timeouts: FAST_TIMEOUTS });
      const prompt = `Rename the billing module ${Math.random().toString(36).slice(2)}`;
      const person = new Person([undefined]);
      try {
        e.inject({ method: 'POST', path: '^/agents$', ...c.rule, times: 1 });
        const form = { ...emptyForm({ appId: 'app_todo', model: 'hosted/fast' }), prompt };
        const outcome = await submitLaunch(form, env(client, e.tokens.default), person);
        // Counted first, so a resend is measured even when the assertions below stop the test.
        const posts = e.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/agents'));
        s.duplicatePosts(posts.length - 1, `${posts.length} POST /agents for one click`);
        assert.equal(outcome.kind, 'stopped');
        assert.equal(outcome.kind === 'stopped' ? outcome.form.prompt : '', prompt, 'the typed prompt was lost');
        assert.equal(await runsWithPrompt(e, prompt), 1, 'the run does not exist exactly once');
        assert.equal(person.shown.length, 1);
        const failure = person.shown[0];
        assert.equal(failure.mayExist, true);
        assert.match(failure.message, c.says);
        assert.match(failure.message, /may have been created/);
        assert.deepEqual(failure.actions.map((a) => a.id).slice(0, 2), ['trackRun', 'retry']);
        assert.equal(failure.actions[1].label, 'Retry Anyway');
        s.sink('start failure message', failure.message);
        s.sink('start failure buttons', failure.actions.map((a) => a.label).join('|'));
      } finally {
        await client.dispose();
      }
    });
  }

  scenario('no-duplicates', 'Retry Anyway sends exactly one more POST, only because the person clicked it', async (s) => {
    const e = emu();
    const client = createClient({ baseUrl: e.baseUrl, token: e.tokens.default, timeouts: FAST_TIMEOUTS });
    const prompt = `Tidy the logger ${Math.random().toString(36).slice(2)}`;
    const person = new Person(['retry']);
    try {
      e.inject({ method: 'POST', path: '^/agents$', passThrough: true, reset: true, times: 1 });
      const outcome = await submitLaunch({ ...emptyForm({ appId: 'app_todo', model: 'hosted/fast' }), prompt }, env(client, e.tokens.default), person);
      const posts = e.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/agents')).length;
      // Two sends: the first, and the one the person asked for with Retry Anyway.
      s.duplicatePosts(posts - 2, `${posts} POST /agents for two clicks`);
      assert.equal(outcome.kind, 'started');
      assert.equal(await runsWithPrompt(e, prompt), 2, 'the person was warned this may start a second run; it did');
    } finally {
      await client.dispose();
    }
  });

  scenario('no-duplicates', 'Track Run by ID after a timed-out start sends nothing more', async (s) => {
    const e = emu();
    const client = createClient({ baseUrl: e.baseUrl, token: e.tokens.default, timeouts: FAST_TIMEOUTS });
    const prompt = `Document the cache ${Math.random().toString(36).slice(2)}`;
    const person = new Person(['trackRun']);
    try {
      e.inject({ method: 'POST', path: '^/agents$', passThrough: true, delayMs: 4_000, times: 1 });
      const outcome = await submitLaunch({ ...emptyForm({ appId: 'app_todo', model: 'hosted/fast' }), prompt }, env(client, e.tokens.default), person);
      const posts = e.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/agents')).length;
      s.duplicatePosts(posts - 1, `${posts} POST /agents`);
      assert.deepEqual(outcome.kind === 'stopped' ? outcome.reason : outcome.kind, 'tracked');
      assert.deepEqual(person.commands, ['trackRun']);
      assert.equal(await runsWithPrompt(e, prompt), 1);
    } finally {
      await client.dispose();
    }
  });

  scenario('no-duplicates', 'a start refused before anything was created (401, 429) is not repeated either', async (s) => {
    const e = emu();
    const client = createClient({ baseUrl: e.baseUrl, token: e.tokens.default, timeouts: FAST_TIMEOUTS });
    try {
      for (const rule of [{ status: 401 }, { status: 429, headers: { 'retry-after': '9' } }, { status: 503 }] as Omit<FaultRule, 'method' | 'path'>[]) {
        const prompt = `Lint everything ${rule.status} ${Math.random().toString(36).slice(2)}`;
        const person = new Person([undefined]);
        const before = e.requests.length;
        e.inject({ method: 'POST', path: '^/agents$', ...rule, times: 1 });
        const outcome = await submitLaunch({ ...emptyForm({ appId: 'app_todo', model: 'hosted/fast' }), prompt }, env(client, e.tokens.default), person);
        const posts = e.requests.slice(before).filter((r) => r.method === 'POST').length;
        s.duplicatePosts(posts - 1, `${posts} POSTs after a ${rule.status}`);
        assert.equal(outcome.kind, 'stopped');
        s.sink('start failure message', person.shown.map((f) => f.message).join('\n'));
        if (rule.status === 429) {
          assert.match(person.shown[0].message, /Try again in 9 seconds/);
        }
      }
    } finally {
      await client.dispose();
    }
  });
});
