// Regressions found by the fault suite (test/faults): each is a value a confused or hostile
// service can send that made the run panel lose content or never show at all.
import * as assert from 'node:assert/strict';
import { parseAgent } from '../../../src/api/parse';
import { PanelSession, RunObserver } from '../../../src/panel/common/panelModel';
import { isSafeLinkUrl, parseExtensionMessage, STRING_KEYS, type WebviewStrings } from '../../../src/panel/common/protocol';
import { domKey, keyFromDom } from '../../../src/panel/common/render';
import { TranscriptStore } from '../../../src/run/common/transcript/store';
import { runOf } from '../../support/runOf';

const strings = Object.fromEntries(STRING_KEYS.map((k) => [k, k])) as WebviewStrings;

/** The panel's first message for a run as the service sent it, checked like the webview does. */
function initFor(raw: Record<string, unknown>): ReturnType<typeof parseExtensionMessage> {
  const agent = parseAgent({ agentId: 'a1', status: 'running', ...raw });
  const store = new TranscriptStore(5);
  const getRun = () => ({ run: runOf(agent) });
  const observer = new RunObserver({ getRun, transcript: (id) => store.get(id), now: () => 1_767_225_600_000 });
  const session = new PanelSession('a1', {
    getRun, transcript: (id) => store.get(id), observer, stallAfterMs: 600_000, locale: 'en', isMac: false, strings: () => strings, draft: () => '',
  });
  // What the poller does before the panel hears of a read: one merge into the shared store.
  store.get('a1').merge(agent.history);
  observer.observe('a1');
  return parseExtensionMessage(JSON.parse(JSON.stringify(session.init())) as unknown);
}

describe('fault suite regressions: the panel survives absurd numbers', () => {
  for (const n of [1e300, -1e300, 2 ** 60, Number.MAX_VALUE, -Number.MAX_VALUE]) {
    it(`a message sequence of ${n} still gives a valid init`, () => {
      const r = initFor({ history: [{ id: '1', sequence: 1, content: 'a' }, { id: '2', sequence: n, content: 'b' }, { id: '3', sequence: 7, content: 'c' }] });
      assert.ok(r.ok, r.ok ? '' : r.reason);
      assert.equal(r.ok && r.message.type === 'init' ? r.message.messages.length : 0, 3);
    });
    it(`a queuedTurnCount of ${n} still gives a valid init`, () => {
      const r = initFor({ lifecycle: { conversationState: 'running', queuedTurnCount: n } });
      assert.ok(r.ok, r.ok ? '' : r.reason);
    });
  }

  it('still counts ordinary gaps in the sequence', () => {
    const r = initFor({ history: [{ id: '1', sequence: 1, content: 'a' }, { id: '5', sequence: 5, content: 'b' }] });
    assert.ok(r.ok && r.message.type === 'init');
    assert.equal(r.ok && r.message.type === 'init' ? r.message.transcript.missingMessageCount : -1, 3);
  });
});

describe('fault suite regressions: message keys and links', () => {
  it('any transcript key survives the attribute round trip, and plain keys stay readable', () => {
    for (const key of ['id:150', 'k', 'id:ctl\u0000\u0007\u001b[2J\u0085', 'id:data:text/html,<script>x</script>', 'id:%0041', 'id:\ud83d\ude00\u202E', 'h:abc']) {
      const attr = domKey(key);
      assert.match(attr, /^[A-Za-z0-9_.:%-]*$/);
      assert.equal(keyFromDom(attr), key);
    }
    assert.equal(domKey('id:150'), 'id:150');
    assert.notEqual(domKey('id:%0041'), domKey('id:A'));
  });

  it('links with bidi or zero-width characters are not offered (the confirmation would show another URL)', () => {
    for (const url of ['https://ok.example/\u202Egnp.exe', 'https://ok.example/a\u200bb', 'https://ok\u2066.example/', 'mailto:a\u202E@b.example']) {
      assert.equal(isSafeLinkUrl(url), false, JSON.stringify(url));
    }
    assert.equal(isSafeLinkUrl('https://ok.example/docs?q=1#x'), true);
  });
});
