import * as assert from 'node:assert/strict';
import type { Agent, AgentMessage } from '../../../src/api/types';
import { PanelSession, RunObserver, buildHeader, type Shown } from '../../../src/panel/common/panelModel';
import { compareOrder } from '../../../src/run/common/transcript/order';
import { STRING_KEYS, parseExtensionMessage, type InitMessage, type UpdateMessage, type WebviewStrings } from '../../../src/panel/common/protocol';
import { TranscriptStore } from '../../../src/run/common/transcript/store';
import { runOf } from '../../support/runOf';

const T0 = Date.UTC(2025, 0, 1, 9, 0, 0);
const strings = Object.fromEntries(STRING_KEYS.map((k) => [k, k])) as WebviewStrings;

function msg(seq: number, over: Partial<AgentMessage> = {}): AgentMessage {
  return { id: `m${seq}`, sequence: seq, role: 'assistant', content: `message ${seq}`, createdAt: T0 + seq * 1_000, ...over };
}

/** A host whose poller merges into the shared store itself, as the extension's does. */
function world(agent: Agent) {
  let store = new TranscriptStore();
  const runs = new Map<string, Shown>([[agent.agentId, { run: runOf(agent) }]]);
  let now = T0 + 100_000;
  const observer = new RunObserver({ getRun: (id) => runs.get(id), transcript: (id) => store.get(id), now: () => now });
  const session = new PanelSession(agent.agentId, {
    getRun: (id) => runs.get(id),
    transcript: (id) => store.get(id),
    observer,
    stallAfterMs: 600_000,
    locale: 'en',
    isMac: false,
    strings: () => strings,
    draft: () => 'draft text',
  });
  return {
    session,
    observer,
    set(view: Shown) {
      runs.set(agent.agentId, view);
    },
    /** The poller: merge, then tell the panel. */
    poll(a: Agent, extra: Partial<Shown> = {}) {
      runs.set(agent.agentId, { run: runOf(a), ...extra });
      store.get(a.agentId).merge(a.history);
      observer.observe(a.agentId);
    },
    tick(ms: number) {
      now += ms;
    },
    replaceStore() {
      store = new TranscriptStore();
    },
  };
}

function valid<T extends InitMessage | UpdateMessage | undefined>(m: T): T {
  if (m) {
    const r = parseExtensionMessage(m);
    assert.ok(r.ok, r.ok ? '' : r.reason);
  }
  return m;
}

const base: Agent = {
  agentId: 'agent-1',
  status: 'running',
  appId: 'my-app',
  model: 'm-1',
  permission: 'read_only',
  createdAt: T0,
  lifecycle: { conversationState: 'thinking', sandboxState: 'ready', queuedTurnCount: 0, lastLifecycleEventAt: T0 + 50_000 },
  history: [msg(1), msg(2), msg(3)],
};

describe('panel model', () => {
  it('builds a valid init with header, transcript, lanes, draft and the unseen divider', () => {
    const w = world(base);
    w.poll(base, { lastSeenAt: T0 + 1_500 });
    const init = valid(w.session.init());
    assert.equal(init.type, 'init');
    assert.deepEqual(init.header, { agentId: 'agent-1', status: 'running', appId: 'my-app', model: 'm-1', permission: 'read_only', createdAt: T0 });
    assert.deepEqual(init.messages.map((m) => m.key), ['id:m1', 'id:m2', 'id:m3']);
    assert.equal(init.firstUnseenKey, 'id:m2');
    assert.equal(init.draft, 'draft text');
    assert.equal(init.lifecycle.conversation.current, 'thinking');
    assert.equal(init.activity.lastActivityAt, T0 + 50_000);
    assert.deepEqual(init.freshness, { state: 'live' });
  });

  it('places a message whose sequence no run could reach where it came, on the page too (issue 20)', () => {
    const odd = msg(2 ** 53 - 1, { id: 'odd', createdAt: T0 + 2_500 });
    const agent = { ...base, history: [msg(1), msg(2), odd, msg(3), msg(4)] };
    const w = world(agent);
    w.poll(agent);
    const init = valid(w.session.init());
    const wired = init.messages.find((m) => m.key === 'id:odd');
    assert.equal(wired?.sequence, 2 ** 53 - 1, 'shown with the number the service sent');
    assert.equal(wired?.orderSequence, 2, 'ordered where the transcript placed it');
    assert.equal(init.messages.find((m) => m.key === 'id:m3')?.orderSequence, undefined, 'a believed sequence is its own order');
    // The page sorts its rows with compareOrder over the wire messages.
    const order = [...init.messages].sort(compareOrder).map((m) => m.key);
    assert.deepEqual(order, ['id:m1', 'id:m2', 'id:odd', 'id:m3', 'id:m4']);
  });

  it('posts nothing when nothing changed, and only what changed otherwise', () => {
    const w = world(base);
    w.poll(base);
    w.session.init();
    w.poll(base);
    assert.equal(w.session.update(), undefined);

    // Two new messages and a grown one, merged by the poller: exactly those.
    const next: Agent = { ...base, history: [msg(1), msg(2), msg(3, { content: 'message 3, grown' }), msg(4), msg(5)] };
    w.tick(5_000);
    w.poll(next);
    const u = valid(w.session.update()) as UpdateMessage;
    assert.deepEqual(u.messages?.map((m) => m.key), ['id:m3', 'id:m4', 'id:m5']);
    assert.equal(u.header, undefined, 'header unchanged');
    assert.equal(u.lifecycle, undefined, 'lanes unchanged');
    assert.equal(u.freshness, undefined);
    assert.equal(u.activity?.lastActivityAt, T0 + 105_000, 'activity moves with the new messages');
    assert.equal(w.session.update(), undefined, 'and they are not sent twice');

    // A status change: the header, and the lanes (the run ended), nothing else.
    w.tick(10_000);
    w.poll({ ...next, status: 'completed', completedAt: T0 + 110_000 });
    const done = valid(w.session.update()) as UpdateMessage;
    assert.equal(done.header?.status, 'completed');
    assert.equal(done.messages, undefined);
    assert.equal(done.lifecycle?.endedAt, T0 + 110_000);

    // Stale: only the freshness.
    w.poll({ ...next, status: 'completed', completedAt: T0 + 110_000 }, { freshness: { state: 'stale', asOf: T0, detail: 'HTTP 503' } });
    assert.deepEqual(valid(w.session.update()), { type: 'update', freshness: { state: 'stale', asOf: T0, detail: 'HTTP 503' } });
  });

  it('sends evictions as removed keys and gap changes as transcript info', () => {
    const agent: Agent = { agentId: 'a2', history: [] };
    const store = new TranscriptStore(5, { maxMessages: 3 });
    const runs = new Map<string, Shown>([['a2', { run: runOf(agent) }]]);
    const observer = new RunObserver({ getRun: (id) => runs.get(id), transcript: (id) => store.get(id), now: () => T0 });
    const session = new PanelSession('a2', { getRun: (id) => runs.get(id), transcript: (id) => store.get(id), observer, stallAfterMs: 60_000, locale: 'en', isMac: true, strings: () => strings, draft: () => '' });
    session.init();
    runs.set('a2', { run: runOf(agent) });
    store.get('a2').merge([msg(1), msg(2), msg(3), msg(4), msg(8)]);
    observer.observe('a2');
    const u = valid(session.update()) as UpdateMessage;
    assert.deepEqual(u.messages?.map((m) => m.key), ['id:m3', 'id:m4', 'id:m8']);
    assert.deepEqual(u.removedKeys, ['id:m1', 'id:m2']);
    assert.deepEqual(u.transcript, { earlierMessagesUnavailable: true, missingMessageCount: 3, droppedMessageCount: 2 });
  });

  it('starts over with an init when the transcript was replaced (e.g. another base URL)', () => {
    const w = world(base);
    w.poll(base);
    w.session.init();
    w.replaceStore();
    w.poll(base);
    const m = valid(w.session.update());
    assert.equal(m?.type, 'init');
  });

  it('keeps only documented, well-typed header fields', () => {
    const junk = { agentId: 'x', status: 'running', permittedBranches: ['main', 7, 'dev'], createdAt: Infinity, model: '', token: 'secret', lastError: 'e'.repeat(50_000) } as unknown as Agent;
    const h = buildHeader(runOf(junk), 'x');
    assert.deepEqual(Object.keys(h).sort(), ['agentId', 'lastError', 'permittedBranches', 'status']);
    assert.deepEqual(h.permittedBranches, ['main', 'dev']);
    assert.equal(h.lastError?.length, 20_000);
  });
});

describe('panel model: one merge per read', () => {
  it('observing a run does not merge its history again (the poller merged it once into the shared store)', () => {
    const store = new TranscriptStore();
    let merges = 0;
    const transcript = store.get('a3');
    const merge = transcript.merge.bind(transcript);
    transcript.merge = (h) => {
      merges++;
      return merge(h);
    };
    const runs = new Map<string, Shown>([['a3', { run: runOf({ agentId: 'a3', history: [msg(1), msg(2)] }) }]]);
    const observer = new RunObserver({ getRun: (id) => runs.get(id), transcript: (id) => store.get(id), now: () => T0 });
    transcript.merge([msg(1), msg(2)]);
    observer.observe('a3');
    observer.observe('a3');
    assert.equal(merges, 1);
  });

  it('sends the gap before a message with that message', () => {
    const store = new TranscriptStore();
    const runs = new Map<string, Shown>([['a4', { run: runOf({ agentId: 'a4' }) }]]);
    const observer = new RunObserver({ getRun: (id) => runs.get(id), transcript: (id) => store.get(id), now: () => T0 });
    const session = new PanelSession('a4', { getRun: (id) => runs.get(id), transcript: (id) => store.get(id), observer, stallAfterMs: 60_000, locale: 'en', isMac: false, strings: () => strings, draft: () => '' });
    store.get('a4').merge([msg(1), msg(5)]);
    const init = valid(session.init());
    assert.deepEqual(init.messages.map((m) => [m.key, m.gapBefore]), [['id:m1', undefined], ['id:m5', 3]]);
    store.get('a4').merge([msg(2), msg(3), msg(4)]);
    const u = valid(session.update()) as UpdateMessage;
    assert.ok(u.messages?.some((m) => m.key === 'id:m5' && m.gapBefore === undefined), 'the filled gap is taken back');
  });
});
