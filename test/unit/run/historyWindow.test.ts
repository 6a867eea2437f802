import * as assert from 'node:assert/strict';
import { createClient, type AgentRunsApi } from '../../../src/api/index';
import { ApiError } from '../../../src/api/errors';
import type { Agent, AgentMessage, HistoryLimitParam, ServiceSchemaInfo } from '../../../src/api/types';
import { HistoryWindows, MIN_WINDOW, windowNeeded } from '../../../src/run/common/polling/historyWindow';
import { DOCUMENTED_HISTORY_PARAM, RunReader, SCHEMA_RETRY_MS, type ReadClient, type RunReaderDeps } from '../../../src/run/common/polling/runReads';
import { Transcript } from '../../../src/run/common/transcript/transcript';
import { startEmulator, type Emulator } from '../../emulator/index';
import { adminOk } from '../../emulator/testing';

const seqs = (from: number, to: number): AgentMessage[] => {
  const out: AgentMessage[] = [];
  for (let s = from; s <= to; s++) out.push({ sequence: s, role: 'assistant', content: `m${s}` });
  return out;
};

/** A reader with its own history windows (the extension loads them lazily). */
const newReader = (deps: Omit<RunReaderDeps, 'windows'>): RunReader => new RunReader({ windows: () => new HistoryWindows(), ...deps });

/** A fake capped service over `count` messages: the most recent `limit` (default `byDefault`, at most `max`). */
function fakeGet(count: () => number, byDefault: number, max: number, asked: (number | undefined)[]) {
  return (limit: number | undefined): Promise<Agent> => {
    asked.push(limit);
    const n = count();
    const k = Math.min(limit ?? byDefault, max);
    return Promise.resolve({ agentId: 'a', status: 'running', history: seqs(Math.max(1, n - k + 1), n) });
  };
}

describe('History windows', () => {
  describe('windowNeeded', () => {
    it('is undefined for a complete answer: fewer than asked, or reaching back to the last one seen', () => {
      assert.equal(windowNeeded(seqs(6, 8), 5, 5), undefined, 'fewer than asked');
      assert.equal(windowNeeded(seqs(6, 10), 5, 5), undefined, 'oldest = last seen + 1');
      assert.equal(windowNeeded(seqs(3, 7), 5, 5), undefined, 'overlaps');
      assert.equal(windowNeeded(seqs(6, 10), 5, undefined), undefined, 'nothing seen yet: nothing to reach back to');
    });

    it('asks for a window reaching back to the last one seen, with slack, when the answer is full and starts past it', () => {
      const wanted = windowNeeded(seqs(26, 30), 5, 5);
      assert.ok(wanted !== undefined && wanted >= 25, String(wanted));
    });
  });

  describe('HistoryWindows.read', () => {
    const param: HistoryLimitParam = { name: 'historyLimit', defaultLimit: 20, maximum: 500 };

    it('without a documented parameter sends none', async () => {
      const asked: (number | undefined)[] = [];
      const r = await new HistoryWindows().read('a', 3, undefined, fakeGet(() => 40, 20, 500, asked));
      assert.deepEqual(asked, [undefined]);
      assert.equal(r.agent.history?.length, 20);
    });

    it('reads a new run with the widest window, then small windows sized to what is new', async () => {
      let n = 30;
      const asked: (number | undefined)[] = [];
      const w = new HistoryWindows();
      const get = fakeGet(() => n, 20, 500, asked);
      await w.read('a', undefined, param, get);
      assert.deepEqual(asked, [500]);
      n = 31;
      await w.read('a', 30, param, get);
      n = 31;
      await w.read('a', 31, param, get);
      assert.deepEqual(asked.slice(1), [MIN_WINDOW, MIN_WINDOW + 2], 'a small window, growing with what came last time');
      await w.read('a', 31, param, get);
      assert.equal(asked[asked.length - 1], MIN_WINDOW, 'nothing new: back to the smallest');
    });

    it('widens when more came than the window holds, and loses nothing', async () => {
      let n = 10;
      const asked: (number | undefined)[] = [];
      const w = new HistoryWindows();
      const get = fakeGet(() => n, 20, 500, asked);
      n = 130;
      const r = await w.read('a', 10, param, get);
      assert.equal(asked.length, 2);
      assert.ok((asked[1] ?? 0) >= 120);
      const got = (r.agent.history ?? []).map((m) => m.sequence);
      assert.ok(got.includes(11) && got.includes(130));
    });

    it('keeps what only the narrower answer of a widened read had', async () => {
      const answers: Agent[] = [
        { agentId: 'a', history: [{ sequence: 40, content: 'only here' }, { sequence: 41, content: 'b' }] },
        { agentId: 'a', history: seqs(11, 39) },
      ];
      const r = await new HistoryWindows().read('a', 10, param, () => Promise.resolve(answers.shift() ?? { agentId: 'a' }));
      const got = (r.agent.history ?? []).map((m) => m.sequence);
      assert.ok(got.includes(40) && got.includes(41) && got.includes(11), String(got));
    });

    it('stops at the maximum: what lies beyond it is gone for good', async () => {
      const asked: (number | undefined)[] = [];
      const r = await new HistoryWindows().read('a', 10, param, fakeGet(() => 1_000, 20, 500, asked));
      assert.equal(asked[asked.length - 1], 500);
      assert.ok(asked.length <= 3);
      assert.equal(r.agent.history?.[0].sequence, 501);
    });
  });

  describe('full windows: the run writes faster than it is read', () => {
    const param: HistoryLimitParam = { name: 'historyLimit', defaultLimit: 20, maximum: 500 };

    it('a read that filled the widest window with new messages is full, whether or not it reached the last one seen; one with fewer is not', async () => {
      let n = 10;
      const w = new HistoryWindows();
      const get = fakeGet(() => n, 20, 500, []);
      n = 610;
      assert.equal((await w.read('a', 10, param, get)).full, true, '600 new: 500 of them returned, 100 out of reach');
      n = 1_110;
      const exactly = await w.read('a', 610, param, get);
      assert.equal(exactly.agent.history?.[0].sequence, 611, 'nothing lost');
      assert.equal(exactly.full, true, 'exactly 500 new: the next 500 may not fit');
      n = 1_113;
      assert.equal((await w.read('a', 1_110, param, get)).full, false, '3 new');
    });

    it('a small window that came back exactly full is not (the next read widens as needed)', async () => {
      let n = 40;
      const w = new HistoryWindows();
      const get = fakeGet(() => n, 20, 500, []);
      await w.read('a', 40, param, get);
      n = 42;
      const r = await w.read('a', 40, param, get);
      assert.deepEqual(r.limits, [MIN_WINDOW]);
      assert.equal(r.agent.history?.length, MIN_WINDOW);
      assert.equal(r.full, false);
    });

    it('a service that cuts below the documented maximum, or reads without a window: full when the answer is all new and stops short of the last one seen', async () => {
      const clamped = await new HistoryWindows().read('a', 10, param, fakeGet(() => 1_000, 20, 200, []));
      assert.equal(clamped.agent.history?.length, 200);
      assert.equal(clamped.full, true);
      const noWindow = (last: number): Promise<boolean> => new HistoryWindows().read('a', last, undefined, fakeGet(() => 100, 20, 500, [])).then((r) => r.full);
      assert.equal(await noWindow(10), true, 'the default of 20 overrun: 81..100 after 10');
      assert.equal(await noWindow(79), true, '80 out of reach');
      assert.equal(await noWindow(80), false, 'reaches back to 81');
      assert.equal(await noWindow(90), false);
    });

    it('RunReader.behind: after a full read, until a read that is not', async () => {
      let n = 10;
      const seen: { last?: number } = { last: 10 };
      const get = fakeGet(() => n, 20, 500, []);
      const c: ReadClient = {
        baseUrl: 'https://svc.example/api/public/v1',
        getSchemaInfo: () => Promise.resolve({ models: [], fingerprint: 'f', historyLimit: param }),
        getAgent: (_id, options) => get(options?.history?.limit),
      };
      const reader = newReader({ lastSequence: () => seen.last });
      n = 610;
      await reader.read(c, 'a');
      assert.equal(reader.behind('a'), true);
      assert.equal(reader.behind('b'), false);
      seen.last = 610;
      n = 620;
      await reader.read(c, 'a');
      assert.equal(reader.behind('a'), false);
      n = 2_000;
      await reader.read(c, 'a');
      reader.forget('a');
      assert.equal(reader.behind('a'), false, 'forgotten with the run');
    });
  });

  describe('RunReader: the saved transcript behind the run list', () => {
    /** A capped service of 200 messages, its schema documenting the window. */
    function client(asked: (number | undefined)[]): ReadClient {
      const get = fakeGet(() => 200, 20, 500, asked);
      return {
        baseUrl: 'https://svc.example/api/public/v1',
        getSchemaInfo: () => Promise.resolve({ models: [], fingerprint: 'f', historyLimit: { name: 'historyLimit', defaultLimit: 20, maximum: 500 } }),
        getAgent: (_id, options) => get(options?.history?.limit),
      };
    }

    it('reaches back to where the saved transcript ends, once, when that is before what the run list saw', async () => {
      let resumeAfter: number | undefined = 50;
      let resumed = 0;
      const reader = newReader({
        lastSequence: () => 199,
        resumeAfter: () => resumeAfter,
        resumed: () => {
          resumed++;
          resumeAfter = undefined;
        },
      });
      const asked: (number | undefined)[] = [];
      const first = await reader.read(client(asked), 'a');
      assert.ok((first.history ?? []).some((m) => m.sequence === 51), `reached back to 51 (windows ${asked.join(', ')})`);
      assert.equal(resumed, 1);
      asked.length = 0;
      const next = await reader.read(client(asked), 'a');
      assert.ok((next.history ?? []).length < 150, `the next read is small again (windows ${asked.join(', ')})`);
    });

    it('a saved transcript at or past what the run list saw changes nothing', async () => {
      const reader = newReader({ lastSequence: () => 199, resumeAfter: () => 199 });
      const asked: (number | undefined)[] = [];
      await reader.read(client(asked), 'a');
      assert.deepEqual(asked, [MIN_WINDOW]);
    });
  });

  describe('RunReader: the window to send when the schema says nothing or cannot be read', () => {
    const BASE = 'https://svc.example/api/public/v1';
    const unreadable = (): Promise<never> => Promise.reject(new ApiError({ kind: 'server', status: 502, message: 'The service answered 502.', mayHaveReachedServer: true }));
    const refusal = (): ApiError => new ApiError({ kind: 'client', status: 400, code: 'invalid_request', message: 'historyLimit is not a known parameter (400).', mayHaveReachedServer: true });
    /** A service of `count` messages that caps like the deployed one (default 100, at most 500); `refuses`: a 400 to any read that carries a window. */
    function service(count: () => number, asked: (number | undefined)[], o: { schema: () => Promise<ServiceSchemaInfo>; refuses?: boolean }): ReadClient {
      const get = fakeGet(count, 100, 500, asked);
      return {
        baseUrl: BASE,
        getSchemaInfo: o.schema,
        getAgent: (_id, options) => {
          const limit = options?.history?.limit;
          if (o.refuses && limit !== undefined) {
            asked.push(limit);
            return Promise.reject(refusal());
          }
          return get(limit);
        },
      };
    }

    it('an unreadable schema: reads send the documented historyLimit (at most 500), so a run past the default of 100 is read whole', async () => {
      let now = 0;
      const seen: { last?: number } = {};
      const asked: (number | undefined)[] = [];
      let n = 300;
      const c = service(() => n, asked, { schema: unreadable });
      const reader = newReader({ lastSequence: () => seen.last, now: () => now });
      const first = await reader.read(c, 'a');
      assert.deepEqual(asked, [DOCUMENTED_HISTORY_PARAM.maximum], 'the widest documented window');
      assert.equal(first.history?.length, 300, 'all 300 messages, not the default 100');
      seen.last = 300;
      n = 650;
      now = SCHEMA_RETRY_MS - 1;
      asked.length = 0;
      const next = await reader.read(c, 'a');
      assert.ok(asked.every((l) => l !== undefined), `a window on every read (${asked.join(', ')})`);
      const got = new Set((next.history ?? []).map((m) => m.sequence));
      assert.ok(got.has(301) && got.has(650), 'widened back to the last one seen');
    });

    it('a service that refuses the parameter (400): the read is made once more without it, and later reads go without, schema retries included', async () => {
      let now = 0;
      const asked: (number | undefined)[] = [];
      const logs: string[] = [];
      const c = service(() => 300, asked, { schema: unreadable, refuses: true });
      const reader = newReader({ lastSequence: () => undefined, now: () => now, log: (m) => logs.push(m) });
      const first = await reader.read(c, 'a');
      assert.deepEqual(asked, [500, undefined]);
      assert.equal(first.history?.length, 100, "the service's default");
      assert.ok(logs.some((m) => /refused a read with historyLimit \(400 invalid_request\)/.test(m)), logs.join('\n'));
      asked.length = 0;
      await reader.read(c, 'b');
      now = SCHEMA_RETRY_MS + 1;
      await reader.read(c, 'a');
      assert.deepEqual(asked, [undefined, undefined], 'not asked with the refused parameter again');
    });

    it('a 400 that is not about the parameter (the read without it fails too) is reported, and the parameter is not given up', async () => {
      const asked: (number | undefined)[] = [];
      const c: ReadClient = {
        baseUrl: BASE,
        getSchemaInfo: unreadable,
        getAgent: (_id, options) => {
          asked.push(options?.history?.limit);
          return Promise.reject(refusal());
        },
      };
      const reader = newReader({ lastSequence: () => undefined });
      await assert.rejects(reader.read(c, 'a'), (e: unknown) => e instanceof ApiError && e.status === 400);
      await assert.rejects(reader.read(c, 'a'));
      assert.deepEqual(asked, [500, undefined, 500, undefined]);
    });

    it('a schema that is read and documents no window: none is sent (the schema is the truth of the moment)', async () => {
      const asked: (number | undefined)[] = [];
      const c = service(() => 300, asked, { schema: () => Promise.resolve({ models: [], fingerprint: 'f' }) });
      await newReader({ lastSequence: () => undefined }).read(c, 'a');
      await newReader({ lastSequence: () => 200 }).read(c, 'a');
      assert.deepEqual(asked, [undefined, undefined]);
    });

    it('a 400 to a window the schema documents is the service\'s answer, not a refusal to work around', async () => {
      const asked: (number | undefined)[] = [];
      const c = service(() => 300, asked, { schema: () => Promise.resolve({ models: [], fingerprint: 'f', historyLimit: { name: 'historyLimit', maximum: 500 } }), refuses: true });
      await assert.rejects(newReader({ lastSequence: () => undefined }).read(c, 'a'), (e: unknown) => e instanceof ApiError && e.status === 400);
      assert.deepEqual(asked, [500]);
    });
  });

  describe('against the emulator with capped histories (default 20, maximum 500)', function () {
    this.timeout(30_000);
    let emu: Emulator;
    let client: AgentRunsApi;

    before(async () => {
      emu = await startEmulator({ clock: 'manual', settings: { historyDefault: 20, historyMax: 500 } });
      client = createClient({ baseUrl: emu.baseUrl, token: emu.tokens.default });
    });
    after(async () => {
      await client.dispose();
      await emu.close();
    });

    it('reads the parameter from the served schema', async () => {
      const info = await client.getSchemaInfo();
      assert.deepEqual(info.historyLimit, { name: 'historyLimit', defaultLimit: 20, maximum: 500 });
    });

    it('the served schema unreadable: reads carry the documented historyLimit and get past the default; a 400 to it: read again without', async () => {
      emu.inject({ method: 'GET', path: '^/openapi\\.json$', status: 503, times: 0 });
      try {
        const run = await client.startAgent({ appId: 'app_todo', prompt: 'Many', model: 'hosted/auto' });
        const notes = Array.from({ length: 60 }, (_, i) => ({ role: 'assistant', content: `note ${i}` }));
        await adminOk(emu.adminUrl, 'POST', `/agents/${run.agentId}/messages`, { messages: notes });
        const reads = (): string[] => emu.requests.filter((r) => r.method === 'GET' && r.path.includes(`/agents/${run.agentId}`)).map((r) => r.path.split(`/agents/${run.agentId}`)[1]);
        const whole = await newReader({ lastSequence: () => undefined }).read(client, run.agentId);
        assert.equal(whole.history?.length, 60, 'past the default window of 20');
        assert.deepEqual(reads(), ['?historyLimit=500']);
        const body = JSON.stringify({ error: '`historyLimit` is not supported.', code: 'invalid_request', field: 'historyLimit' });
        emu.inject({ method: 'GET', path: `^/agents/${run.agentId}$`, status: 400, body, times: 1 });
        const refused = await newReader({ lastSequence: () => undefined }).read(client, run.agentId);
        assert.equal(refused.history?.length, 20, "read again without it: the service's default");
        assert.deepEqual(reads().slice(1), ['?historyLimit=500', '']);
      } finally {
        emu.clearFaults();
      }
    });

    it('messages lost between polls = 0, whatever a run writes between two reads; a gap past the maximum is marked where it is', async () => {
      const param = (await client.getSchemaInfo()).historyLimit;
      const run = await client.startAgent({ appId: 'app_todo', prompt: 'Count', model: 'hosted/auto' });
      const windows = new HistoryWindows();
      const transcript = new Transcript();
      let last: number | undefined;
      const poll = async (): Promise<void> => {
        const r = await windows.read(run.agentId, last, param, (limit) =>
          client.getAgent(run.agentId, { history: param && limit !== undefined ? { param: param.name, limit } : undefined }));
        transcript.merge(r.agent.history);
        for (const m of r.agent.history ?? []) last = Math.max(last ?? 0, m.sequence ?? 0);
      };
      // What a run writes between two reads, in one admin request: a request per message made
      // this test 1,100 round trips, each waiting for a core on a busy machine (20 s at load 25).
      const write = async (count: number): Promise<void> => {
        if (count === 0) return;
        const messages = Array.from({ length: count }, (_, i) => i % 2 === 0
          ? { role: 'tool', content: `result ${i}`, toolName: 'read_file', toolParameters: { path: `f${i}.ts` } }
          : { role: 'assistant', content: `note ${i}` });
        await adminOk(emu.adminUrl, 'POST', `/agents/${run.agentId}/messages`, { messages });
      };
      await poll();
      for (const count of [0, 1, 3, 21, 60, 0, 250, 2]) {
        await write(count);
        await poll();
      }
      const whole = (await adminOk(emu.adminUrl, 'GET', `/agents/${run.agentId}`)) as { history: AgentMessage[] };
      const have = new Set(transcript.snapshot().entries.map((e) => e.sequence));
      const lost = whole.history.filter((m) => !have.has(m.sequence));
      assert.deepEqual(lost.map((m) => m.sequence), [], 'messages lost between polls');
      assert.equal(transcript.snapshotInfo().earlierMessagesUnavailable, false, 'no gap the client could fill is reported');

      // 700 at once: 500 can be had, about 200 are gone for good, and the transcript says so there.
      const before = last ?? 0;
      await write(700);
      await poll();
      const entries = transcript.snapshot().entries;
      const marked = entries.filter((e) => (e.gapBefore ?? 0) > 0);
      assert.equal(marked.length, 1);
      assert.ok(marked[0].sequence !== undefined && marked[0].sequence > before + 1);
      assert.equal(marked[0].gapBefore, marked[0].sequence - before - 1);
    });
  });
});
