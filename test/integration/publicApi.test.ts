// The API other extensions build on (getAPI(1), src/publicApi/agent-runs.d.ts), used by a second
// extension in the same extension host (test/fixtures/api-client-extension, installed beside ours
// by the launcher): it sees a run it started being added, change state and finish, each exactly
// once; its start and follow-up are put before the person first (the test answers in their place
// through the test API's publicApi hooks), and sent once when accepted, never when declined.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AgentRunsTestApi } from '../../src/extension';
import { readTestContext } from '../support/testContext';
import { requestsSince, waitFor, type LoggedRequest } from './emulatorAdmin';

const FIXTURE_ID = 'agent-runs-tests.fixture-api-client';

interface Seen { event: string; agentId: string; oldStatus?: string; newStatus?: string; outcome?: string; prompt?: string; status?: string }
interface Confirmation { title: string; message: string }
/** What the fixture extension exports (test/fixtures/api-client-extension/extension.js). */
interface Fixture {
  seen(): Seen[];
  startRun(request: unknown): Promise<{ kind: string; agentId?: string; message?: string }>;
  sendFollowUp(agentId: string, request: unknown): Promise<{ kind: string; message?: string }>;
  trackRun(agentId: unknown): Promise<{ kind: string; message?: string }>;
  run(agentId: string): { agentId: string; baseUrl: string; state: { status: string; finished: boolean } } | undefined;
  recentMessages(agentId: string, max?: number): Promise<{ role?: string; content?: string }[]>;
  getAPI(version: number): unknown;
}

const posts = (requests: LoggedRequest[], path: RegExp): LoggedRequest[] => requests.filter((r) => r.method === 'POST' && path.test(r.path.split('?')[0]));

describe('The API for other extensions: getAPI(1) from a second extension', function () {
  this.timeout(90_000);
  const context = readTestContext();
  let api: AgentRunsTestApi;
  let fixture: Fixture;
  const asked: Confirmation[] = [];
  let answer = false;

  before(async function () {
    if (!context) this.skip();
    const ours = vscode.extensions.all.find((e) => e.id.toLowerCase() === context.extensionId.toLowerCase());
    const other = vscode.extensions.getExtension<Fixture>(FIXTURE_ID);
    assert.ok(ours && other, 'both extensions are installed');
    api = (await ours.activate()) as AgentRunsTestApi;
    fixture = await other.activate();
    api.publicApi.answerConfirmations((c) => {
      asked.push(c);
      return answer;
    });
  });

  after(() => api?.publicApi.answerConfirmations(undefined));

  it('gives version 1 and refuses any other with a clear error', () => {
    assert.throws(() => fixture.getAPI(2), /no API version 2; it offers version 1/);
  });

  it('a start the person declines sends nothing; accepted, one POST, and the run is added, changes state and finishes once each', async () => {
    const request = { prompt: 'Check the API for other extensions', appId: 'app_todo', model: 'hosted/auto' };
    let log = await requestsSince(context!, 0);

    answer = false;
    const declined = await fixture.startRun(request);
    assert.equal(declined.kind, 'declined', JSON.stringify(declined));
    assert.equal(asked.length, 1, 'the person was asked once');
    assert.equal(asked[0].title, 'Start an agent run on app_todo?');
    assert.match(asked[0].message, /Check the API for other extensions/);
    log = await requestsSince(context!, log.next);
    assert.deepEqual(posts(log.requests, /\/agents$/), [], 'declined: nothing was sent');

    answer = true;
    const started = await fixture.startRun(request);
    assert.equal(started.kind, 'started', JSON.stringify(started));
    assert.equal(asked.length, 2);
    const agentId = started.agentId!;
    const finished = await waitFor('the fixture to see the run finish', () => fixture.seen().some((e) => e.event === 'finished' && e.agentId === agentId));
    assert.ok(finished);
    log = await requestsSince(context!, log.next);
    assert.equal(posts(log.requests, /\/agents$/).length, 1, 'accepted: exactly one POST /agents');

    const mine = fixture.seen().filter((e) => e.agentId === agentId);
    assert.equal(mine.filter((e) => e.event === 'added').length, 1, JSON.stringify(mine));
    assert.equal(mine[0].event, 'added', 'added comes first');
    const changes = mine.filter((e) => e.event === 'stateChanged');
    assert.ok(changes.length >= 1, JSON.stringify(mine));
    // Each change once: every step starts where the one before ended, and none repeats.
    let status = mine[0].status;
    for (const c of changes) {
      assert.equal(c.oldStatus, status, JSON.stringify(mine));
      assert.notEqual(c.newStatus, c.oldStatus);
      status = c.newStatus;
    }
    assert.equal(new Set(changes.map((c) => `${c.oldStatus}>${c.newStatus}`)).size, changes.length, JSON.stringify(mine));
    assert.equal(status, 'completed');
    assert.deepEqual(mine.filter((e) => e.event === 'finished').map((e) => e.outcome), ['completed'], JSON.stringify(mine));
    assert.equal(mine[mine.length - 1].event, 'finished', 'finished comes last');
    const run = fixture.run(agentId);
    assert.equal(run?.state.status, 'completed');
    assert.equal(run?.state.finished, true);
    assert.equal(run?.baseUrl, api.connection().baseUrl);
    const messages = await fixture.recentMessages(agentId, 2);
    assert.ok(messages.length > 0 && messages.length <= 2, JSON.stringify(messages));
    assert.doesNotMatch(JSON.stringify([run, messages, fixture.seen()]), new RegExp(context!.emulator.tokens.default), 'no token crosses the API');

    // A follow-up: declined sends nothing; accepted, one POST and one acknowledgement event.
    answer = false;
    assert.equal((await fixture.sendFollowUp(agentId, { prompt: 'One more thing' })).kind, 'declined');
    assert.equal(asked[asked.length - 1].title, `Send a follow-up to run ${agentId}?`);
    log = await requestsSince(context!, log.next);
    assert.deepEqual(posts(log.requests, /\/messages$/), []);
    answer = true;
    const sent = await fixture.sendFollowUp(agentId, { prompt: 'One more thing' });
    assert.equal(sent.kind, 'sent', JSON.stringify(sent));
    await waitFor('the follow-up turn to finish', () => fixture.seen().filter((e) => e.event === 'finished' && e.agentId === agentId).length === 2);
    log = await requestsSince(context!, log.next);
    assert.equal(posts(log.requests, /\/messages$/).length, 1, 'accepted: exactly one POST of the follow-up');
    const after = fixture.seen().filter((e) => e.agentId === agentId);
    assert.deepEqual(after.filter((e) => e.event === 'followUpAcknowledged').map((e) => e.prompt), ['One more thing'], JSON.stringify(after));
  });

  it('bad input is refused before the person is asked; tracking an unknown run is refused, nothing is sent', async () => {
    const before = asked.length;
    const log = await requestsSince(context!, 0);
    const bad = await fixture.startRun({ prompt: '', appId: 'app_todo', model: 'hosted/auto' });
    assert.equal(bad.kind, 'refused');
    assert.match(bad.message ?? '', /prompt/);
    assert.equal((await fixture.trackRun('..')).kind, 'refused');
    assert.equal((await fixture.sendFollowUp('', { prompt: 'x' })).kind, 'refused');
    assert.equal(asked.length, before, 'nothing refused by the checks is put before the person');
    answer = true;
    const unknown = await fixture.trackRun('agt_does_not_exist');
    assert.equal(unknown.kind, 'refused', JSON.stringify(unknown));
    const after = await requestsSince(context!, log.next);
    assert.deepEqual(after.requests.filter((r) => r.method !== 'GET'), []);
  });

  it('tracking a run started elsewhere asks first; accepted, it is added once', async () => {
    const res = await fetch(`${context!.emulator.baseUrl}/agents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${context!.emulator.tokens.default}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'Started by a script', appId: 'app_todo', model: 'hosted/auto' }),
    });
    assert.ok(res.ok, String(res.status));
    const { agentId } = (await res.json()) as { agentId: string };
    answer = false;
    assert.equal((await fixture.trackRun(agentId)).kind, 'declined');
    assert.equal(fixture.run(agentId), undefined, 'declined: not added');
    answer = true;
    const tracked = await fixture.trackRun(agentId);
    assert.equal(tracked.kind, 'tracked', JSON.stringify(tracked));
    assert.equal(asked[asked.length - 1].title, `Add run ${agentId} to the Agent Runs view?`);
    assert.equal(fixture.seen().filter((e) => e.agentId === agentId && e.event === 'added').length, 1);
    assert.ok(api.ledger().has(agentId));
  });
});
