import * as assert from 'node:assert/strict';
import {
  MAX_WIRE_CONTENT_CHARS,
  PROTOCOL_VERSION,
  STRING_KEYS,
  checkWireMessage,
  cutText,
  format,
  parseExtensionMessage,
  parsePanelState,
  parseWebviewMessage,
  toWireMessage,
  type InitMessage,
  type WebviewStrings,
  wireMessageSchema,
} from '../../../src/panel/common/protocol';
import { compareOrder } from '../../../src/run/common/transcript/order';

const strings = Object.fromEntries(STRING_KEYS.map((k) => [k, k])) as WebviewStrings;

function init(over: Partial<InitMessage> = {}): InitMessage {
  return {
    type: 'init',
    protocol: PROTOCOL_VERSION,
    agentId: 'a1',
    locale: 'en',
    isMac: false,
    strings,
    header: { agentId: 'a1', status: 'running' },
    lifecycle: { conversation: { segments: [] }, sandbox: { segments: [] } },
    activity: { stallAfterMs: 600_000 },
    freshness: { state: 'live' },
    transcript: { earlierMessagesUnavailable: false, missingMessageCount: 0, droppedMessageCount: 0 },
    messages: [{ key: 'id:1', arrival: 0, sequence: 1, role: 'user', content: 'hi' }],
    draft: '',
    maxContentChars: MAX_WIRE_CONTENT_CHARS,
    ...over,
  };
}

describe('protocol: webview → extension', () => {
  it('accepts every well-formed message', () => {
    const good: unknown[] = [
      { type: 'ready' },
      { type: 'sendFollowUp', requestId: 1, prompt: 'go on' },
      { type: 'sendFollowUp', requestId: 2, prompt: 'edit', permission: 'allow_edits', permittedBranches: ['main'] },
      { type: 'draftChanged', text: '' },
      { type: 'copy', text: 'abc' },
      { type: 'openLink', url: 'https://ok.example' },
      { type: 'export', format: 'markdown' },
      { type: 'export', format: 'json' },
      { type: 'clone' },
      { type: 'openInEditor', messageKey: 'id:1' },
      { type: 'refresh' },
      { type: 'markSeen' },
    ];
    for (const m of good) {
      const r = parseWebviewMessage(m);
      assert.ok(r.ok, JSON.stringify(m));
      assert.deepEqual(r.message, m);
    }
  });

  it('rejects unknown, malformed and oversized messages with a reason', () => {
    const bad: unknown[] = [
      undefined,
      null,
      'ready',
      42,
      [],
      {},
      { type: 'nope' },
      { type: 'READY' },
      { type: 'ready', extra: true },
      { type: 'sendFollowUp', requestId: 1 },
      { type: 'sendFollowUp', requestId: 1, prompt: '   ' },
      { type: 'sendFollowUp', requestId: -1, prompt: 'x' },
      { type: 'sendFollowUp', requestId: 1.5, prompt: 'x' },
      { type: 'sendFollowUp', requestId: 1, prompt: 'x', permission: 'admin' },
      { type: 'sendFollowUp', requestId: 1, prompt: 'x', permittedBranches: 'main' },
      { type: 'sendFollowUp', requestId: 1, prompt: 'x', permittedBranches: new Array(101).fill('b') },
      { type: 'sendFollowUp', requestId: 1, prompt: 'x'.repeat(1_000_001) },
      { type: 'copy', text: 5 },
      { type: 'openLink', url: 'x'.repeat(9_000) },
      { type: 'export', format: 'html' },
      { type: 'openInEditor' },
      { type: 'draftChanged', text: null },
    ];
    for (const m of bad) {
      const r = parseWebviewMessage(m);
      assert.ok(!r.ok, `accepted ${JSON.stringify(m)?.slice(0, 80)}`);
      assert.ok(r.reason.length > 0);
    }
  });
});

describe('protocol: extension → webview', () => {
  it('accepts init, update, followUpResult and draft', () => {
    assert.ok(parseExtensionMessage(init()).ok);
    assert.ok(parseExtensionMessage({ type: 'update' }).ok);
    assert.ok(parseExtensionMessage({ type: 'update', header: { agentId: 'a1', status: 'completed' }, removedKeys: ['id:1'] }).ok);
    assert.ok(parseExtensionMessage({ type: 'followUpResult', requestId: 3, ok: true }).ok);
    assert.ok(parseExtensionMessage({ type: 'followUpResult', requestId: 3, ok: false, error: 'no' }).ok);
    assert.ok(parseExtensionMessage({ type: 'draft', text: 'hello' }).ok);
  });

  it('rejects malformed ones', () => {
    const bad: unknown[] = [
      null,
      { type: 'init' },
      init({ protocol: 2 as 1 }),
      init({ strings: { ...strings, send: 5 as unknown as string } }),
      init({ messages: [{ key: 'k', arrival: -1 }] }),
      init({ messages: [{ key: 'k', arrival: 0, content: 'x'.repeat(MAX_WIRE_CONTENT_CHARS + 1) }] }),
      init({ messages: [{ key: 'k', arrival: 0, createdAt: Number.NaN }] }),
      init({ freshness: { state: 'weird' as 'live' } }),
      { type: 'update', messages: 'x' },
      { type: 'followUpResult', requestId: 1, ok: false },
      { type: 'draft' },
      { type: 'toString' },
      { type: 'constructor' },
    ];
    for (const m of bad) {
      assert.ok(!parseExtensionMessage(m).ok, JSON.stringify(m)?.slice(0, 120));
    }
    const missing = { ...strings } as Partial<WebviewStrings>;
    delete missing.send;
    assert.ok(!parseExtensionMessage(init({ strings: missing as WebviewStrings })).ok, 'every string is required');
  });

  it('reads only a valid agentId back from panel state', () => {
    assert.deepEqual(parsePanelState({ agentId: 'a1', draft: 'x' }), { agentId: 'a1' });
    assert.equal(parsePanelState({ agentId: '' }), undefined);
    assert.equal(parsePanelState({ agentId: 7 }), undefined);
    assert.equal(parsePanelState(undefined), undefined);
  });
});

describe('protocol: helpers', () => {
  it('cuts long fields for the wire and remembers the full length', () => {
    const w = toWireMessage('id:1', 4, {
      id: '1',
      sequence: 1,
      role: 'assistant',
      content: '😀'.repeat(MAX_WIRE_CONTENT_CHARS),
      toolParameters: 'p'.repeat(MAX_WIRE_CONTENT_CHARS + 5),
      attachments: new Array(150).fill('a'),
      createdAt: Infinity,
    });
    assert.equal(w.contentLength, MAX_WIRE_CONTENT_CHARS * 2);
    assert.ok(w.content!.length <= MAX_WIRE_CONTENT_CHARS);
    assert.ok(!/[\ud800-\udbff]$/.test(w.content!), 'no split surrogate pair');
    assert.equal(w.toolParametersLength, MAX_WIRE_CONTENT_CHARS + 5);
    assert.equal(w.attachments!.length, 100);
    assert.equal(w.attachmentCount, 150);
    assert.equal(w.createdAt, undefined);
    assert.ok(parseExtensionMessage(init({ messages: [w] })).ok, 'a wire message always validates');
    const small = toWireMessage('id:2', 0, { content: 'short' });
    assert.equal(small.contentLength, undefined);
  });

  it('carries the deployed shapes: object parameters as indented JSON, attachment objects as chips, nothing dropped', () => {
    const params = { path: 'src/a.ts', edits: [{ line: 3, insert: 'x' }], options: { dryRun: false, mode: null } };
    const w = toWireMessage('id:1', 0, {
      role: 'tool',
      toolName: 'edit_file',
      toolParameters: params,
      attachments: [
        { type: 'file', name: 'report.pdf', url: 'https://files.example/r.pdf', mimeType: 'application/pdf' },
        { identifier: 'ENG-42', title: 'Checkout fails', url: 'https://linear.example/ENG-42' },
        { weird: { deep: [1, 2] } },
        { name: 'trap', url: 'javascript:alert(1)' },
        { name: 'far', url: `https://x.example/${'p'.repeat(3_000)}` },
        'src/app.ts',
        7,
      ],
    });
    assert.equal(w.content, undefined);
    assert.equal(w.toolParameters, JSON.stringify(params, null, 2));
    assert.equal(w.toolParametersJson, true);
    assert.deepEqual(w.attachments, [
      { label: 'report.pdf', url: 'https://files.example/r.pdf', type: 'file' },
      { label: 'ENG-42', url: 'https://linear.example/ENG-42', title: 'Checkout fails' },
      { label: '{"weird":{"deep":[1,2]}}', raw: true },
      // Kept as sent: the page decides what it links (http/https only).
      { label: 'trap', url: 'javascript:alert(1)' },
      // A link longer than the wire carries is not cut into another link: not offered.
      { label: 'far' },
      'src/app.ts',
      { label: '7', raw: true },
    ]);
    const checked = parseExtensionMessage(init({ messages: [w] }));
    assert.ok(checked.ok, checked.ok ? '' : checked.reason);
    assert.deepEqual(checked.ok && checked.message.type === 'init' ? checked.message.messages[0] : undefined, w, 'the page gets them unchanged');
    // A string stays as sent (the page pretty-prints it), unflagged; long ones are cut with their length.
    assert.deepEqual(toWireMessage('id:2', 1, { toolParameters: '{"a":1}' }), { key: 'id:2', arrival: 1, toolParameters: '{"a":1}' });
    const huge = { blob: 'z'.repeat(MAX_WIRE_CONTENT_CHARS) };
    const cut = toWireMessage('id:3', 2, { toolParameters: huge, attachments: [{ blob: 'q'.repeat(5_000) }] });
    assert.equal(cut.toolParameters!.length, MAX_WIRE_CONTENT_CHARS);
    assert.equal(cut.toolParametersLength, JSON.stringify(huge, null, 2).length);
    assert.equal((cut.attachments![0] as { label: string }).label.length, 2_000);
    assert.ok(parseExtensionMessage(init({ messages: [cut] })).ok);
  });

  it('orders by sequence, createdAt, arrival with missing values last', () => {
    const list = [
      { arrival: 0 },
      { arrival: 1, createdAt: 5 },
      { arrival: 2, sequence: 2 },
      { arrival: 3, sequence: 1, createdAt: 9 },
      { arrival: 4, sequence: 1, createdAt: 3 },
    ];
    assert.deepEqual(list.sort(compareOrder).map((x) => x.arrival), [4, 3, 2, 1, 0]);
  });

  it('formats placeholders and cuts text safely', () => {
    assert.equal(format('{0} of {1} {2}', 1, 'two'), '1 of two {2}');
    assert.equal(cutText('ab😀', 3), 'ab');
    assert.equal(cutText('abc', 5), 'abc');
  });
});

describe('protocol: wire messages checked by hand', () => {
  // parseExtensionMessage checks `messages` with checkWireMessage (fast under the webview's
  // CSP, where zod cannot compile its checks); it must agree with wireMessageSchema exactly.
  let seed = 0x2f6e2b1;
  const random = (): number => {
    seed = (Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) | 0;
    return ((seed >>> 0) % 1_000_000) / 1_000_000;
  };
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
  const numbers = [0, -0, 1, 7, -1, 1.5, 2 ** 53 - 1, 2 ** 53, 1e300, -1e300, 8.64e15, -8.64e15, 8.64e15 + 1_000, Number.NaN, Infinity, -Infinity];
  const strOf = (n: number): string => 'x'.repeat(n);
  const others: unknown[] = [undefined, null, true, 'text', '', 3, [], {}, ['a'], { a: 1 }];
  const fields: Record<string, () => unknown> = {
    key: () => pick([strOf(1), strOf(1_000), strOf(1_001), ...others]),
    arrival: () => pick([...numbers, ...others]),
    id: () => pick([strOf(0), strOf(1_000), strOf(1_001), ...others]),
    sequence: () => pick([...numbers, ...others]),
    orderSequence: () => pick([...numbers, ...others]),
    role: () => pick(['user', strOf(200), strOf(201), ...others]),
    content: () => pick(['hi', strOf(MAX_WIRE_CONTENT_CHARS), strOf(MAX_WIRE_CONTENT_CHARS + 1), ...others]),
    contentLength: () => pick([...numbers, ...others]),
    toolName: () => pick(['shell', strOf(200), strOf(201), ...others]),
    toolParameters: () => pick(['{}', strOf(MAX_WIRE_CONTENT_CHARS), strOf(MAX_WIRE_CONTENT_CHARS + 1), ...others]),
    toolParametersLength: () => pick([...numbers, ...others]),
    toolParametersJson: () => pick([true, false, 1, 'true', ...others]),
    attachments: () =>
      pick([
        [], ['a', 'b'], new Array<string>(100).fill('a'), new Array<string>(101).fill('a'), [strOf(2_000)], [strOf(2_001)], ['a', 3], [undefined], ...others,
        // Attachment objects as the page gets them (see toWireMessage), well- and ill-formed.
        [{ label: 'f' }], ['a', { label: 'ENG-1', url: 'https://x.example/1', type: 'linear_issue', title: 'T', raw: true }],
        [{ label: strOf(2_000), url: strOf(2_000), type: strOf(200), title: strOf(200) }], [{ label: strOf(2_001) }], [{ label: 'f', url: strOf(2_001) }],
        [{ label: 'f', type: strOf(201) }], [{ label: 'f', title: strOf(201) }], [{ label: 'f', raw: false }], [{ label: 'f', raw: 'yes' }],
        [{ label: 'f', extra: 'dropped' }], [{ url: 'https://x.example' }], [{ label: 3 }], [{ label: 'f', url: null }], [['a']], [null],
        new Array<unknown>(100).fill({ label: 'f' }), new Array<unknown>(101).fill({ label: 'f' }),
      ]),
    attachmentCount: () => pick([...numbers, ...others]),
    createdAt: () => pick([...numbers, ...others]),
    extra: () => pick(['dropped', ...others]),
  };
  /** zod keeps an optional key given as undefined; the hand-written check leaves it out. Both mean "absent". */
  const defined = (v: unknown): unknown => (v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined)) : v);

  function agree(value: unknown): void {
    const expected = wireMessageSchema.safeParse(value);
    const actual = checkWireMessage(value);
    const shown = JSON.stringify(value, (_k, v: unknown) => (typeof v === 'string' && v.length > 20 ? `<${v.length} chars>` : typeof v === 'number' && !Number.isFinite(v) ? String(v) : v));
    assert.equal(typeof actual !== 'string', expected.success, `accepted by one check only: ${shown}`);
    if (expected.success && typeof actual !== 'string') {
      assert.deepEqual(actual, defined(expected.data), shown);
    }
  }

  it('accepts and rejects what wireMessageSchema does, with the same result', () => {
    for (let n = 0; n < 4_000; n++) {
      // Mostly valid messages with one or two fields changed, so every check is reached.
      const value: Record<string, unknown> = { key: 'id:1', arrival: 0 };
      for (const [name, make] of Object.entries(fields)) {
        if (random() < 0.5) {
          value[name] = make();
        }
      }
      if (random() < 0.6) {
        for (const [name, ok] of Object.entries({ key: 'id:2', arrival: 3, sequence: 2, createdAt: 5, content: 'c', attachments: ['a'] })) {
          if (random() < 0.7) {
            value[name] = ok;
          }
        }
      }
      agree(value);
    }
    for (const value of [null, undefined, 'id:1', 5, [], [{ key: 'a', arrival: 0 }], new Map(), new Date(0), Object.create({ key: 'inherited', arrival: 1 }) as unknown]) {
      agree(value);
    }
    class Message {
      key = 'k';
      arrival = 2;
      get content(): string {
        return 'from a getter';
      }
    }
    agree(new Message());
  });

  it('rejects a bad message in init or update, naming where', () => {
    const r = parseExtensionMessage(init({ messages: [{ key: 'a', arrival: 0 }, { key: 'b', arrival: 1, attachments: [3] as unknown as string[] }] }));
    assert.ok(!r.ok && r.reason.includes('messages.1.attachments'), r.ok ? '' : r.reason);
    assert.ok(!parseExtensionMessage({ type: 'update', messages: [null] }).ok);
    assert.ok(!parseExtensionMessage({ type: 'update', messages: new Array(20_001).fill({ key: 'a', arrival: 0 }) }).ok, 'at most 20,000');
    assert.ok(!parseExtensionMessage({ ...init(), messages: undefined }).ok, 'init needs its messages');
    assert.ok(!parseExtensionMessage({ ...init(), protocol: 2 }).ok, 'the rest is still checked when the messages are valid');
    for (const bad of [[{ label: 'x', url: 'u'.repeat(2_001) }], [{ url: 'https://x.example' }], [{ label: 'x', raw: false }], [null]]) {
      const r2 = parseExtensionMessage(init({ messages: [{ key: 'a', arrival: 0, attachments: bad as unknown as string[] }] }));
      assert.ok(!r2.ok && r2.reason.includes('messages.0.attachments'), JSON.stringify(bad));
    }
    const flagged = parseExtensionMessage(init({ messages: [{ key: 'a', arrival: 0, toolParameters: '{}', toolParametersJson: 1 as unknown as true }] }));
    assert.ok(!flagged.ok && flagged.reason.includes('messages.0.toolParametersJson'));
    const ok = parseExtensionMessage({ type: 'update', messages: [{ key: 'a', arrival: 0, content: 'x', extra: 1 }], removedKeys: ['b'] });
    assert.deepEqual(ok.ok ? ok.message : undefined, { type: 'update', messages: [{ key: 'a', arrival: 0, content: 'x' }], removedKeys: ['b'] });
  });
});
