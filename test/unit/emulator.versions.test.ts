import assert from 'node:assert/strict';
import { MANUAL_EPOCH, SEED, startEmulator, VERSION_BRANCHES, VERSIONS_PAGE, type Emulator } from '../emulator/index';
import { ApiCaller, obj, type Json } from '../emulator/testing';

const STEP = 1000;
const HOUR = 60 * 60 * 1000;

describe('emulator: versions (deployed shapes)', () => {
  let emu: Emulator;
  let api: ApiCaller;
  const page = async (q: string): Promise<{ versions: Json[]; nextCursor: string | null }> => {
    const result = await api.request('GET', `/versions?appId=${SEED.apps.todo}${q}`);
    assert.equal(result.status, 200, result.text);
    return obj(result) as { versions: Json[]; nextCursor: string | null };
  };

  before(async () => {
    emu = await startEmulator({ clock: 'manual', stepMs: STEP, preset: 'deployed', settings: { staleReadMs: null, staleStatusAfterFollowUpMs: null } });
    api = new ApiCaller(emu, emu.tokens.default);
  });
  after(() => emu.close());
  beforeEach(() => emu.reset());

  it('GET /versions: newest first, every field, ISO and ms times, every stage over three branches', async () => {
    const { versions, nextCursor } = await page('&limit=100');
    assert.equal(nextCursor, null);
    assert.equal(versions.length, 12);
    assert.deepEqual(Object.keys(versions[0]).sort(), [
      'completedAt', 'completedAtMs', 'createdAt', 'createdAtMs', 'errorMessage', 'fileSha256', 'fileSizeBytes', 'lastChange', 'stage', 'syncSource',
      'syncedAt', 'syncedAtMs', 'version', 'versionDisplay', 'versionId',
    ]);
    const times = versions.map((v) => v.createdAtMs as number);
    assert.deepEqual(times, [...times].sort((a, b) => b - a), 'newest first');
    assert.equal(times[0], MANUAL_EPOCH - HOUR);
    assert.deepEqual(new Set(versions.map((v) => v.stage)), new Set(['pending', 'stored', 'indexing', 'completed', 'failed']));
    assert.deepEqual(new Set(versions.map((v) => v.version)), new Set(VERSION_BRANCHES.map((b) => b.version)));
    const newest = versions[0];
    assert.deepEqual([newest.versionId, newest.versionDisplay, newest.stage, newest.syncedAt, newest.syncedAtMs, newest.completedAtMs], ['ver_todo_012', 'Main #12', 'pending', null, null, null]);
    const completed = versions.find((v) => v.versionId === 'ver_todo_010') as Json;
    assert.equal(completed.createdAt, new Date(completed.createdAtMs as number).toISOString());
    assert.equal(completed.completedAt, new Date(completed.completedAtMs as number).toISOString());
    assert.match(String(completed.fileSha256), /^[0-9a-f]{64}$/);
    const failed = versions.find((v) => v.stage === 'failed') as Json;
    assert.match(String(failed.errorMessage), /timed out/);
  });

  it('GET /versions: cursor pagination (default page 10), filters by branch id or label and by sync time; bad parameters are 400', async () => {
    const first = await page('');
    assert.equal(first.versions.length, VERSIONS_PAGE.default);
    assert.equal(typeof first.nextCursor, 'string');
    const second = await page(`&cursor=${encodeURIComponent(String(first.nextCursor))}`);
    assert.deepEqual(second.versions.map((v) => v.versionId), ['ver_todo_002', 'ver_todo_001']);
    assert.equal(second.nextCursor, null);
    const small = await page('&limit=5');
    const next = await page(`&limit=5&cursor=${String(small.nextCursor)}`);
    assert.deepEqual([...small.versions, ...next.versions].map((v) => v.versionId), first.versions.map((v) => v.versionId));

    const timeouts = await page('&version=feature/request-timeouts');
    assert.deepEqual(timeouts.versions.map((v) => v.versionId), ['ver_todo_011', 'ver_todo_009', 'ver_todo_006', 'ver_todo_003']);
    assert.deepEqual((await page('&version=Request%20timeouts')).versions, timeouts.versions, 'the label works as the id');
    const cut = (first.versions.find((v) => v.versionId === 'ver_todo_008') as Json).syncedAtMs as number;
    assert.deepEqual((await page(`&syncedAfter=${cut}`)).versions.map((v) => v.versionId), ['ver_todo_011', 'ver_todo_010', 'ver_todo_009'], 'unsynced versions drop out');
    assert.deepEqual((await page(`&syncedBefore=${new Date(cut).toISOString()}&limit=100`)).versions.length, 7);

    for (const bad of ['&limit=0', `&limit=${VERSIONS_PAGE.max + 1}`, '&limit=x', '&cursor=garbage', '&syncedAfter=yesterday']) {
      const result = await api.request('GET', `/versions?appId=${SEED.apps.todo}${bad}`);
      assert.equal(result.status, 400, bad);
    }
    assert.equal(obj(await api.request('GET', '/versions')).field, 'appId');
    assert.equal((await api.request('GET', '/versions?appId=app_nope')).status, 400);
    assert.equal((await new ApiCaller(emu, emu.tokens.scoped).request('GET', `/versions?appId=${SEED.apps.shop}`)).status, 403);
    assert.equal((await new ApiCaller(emu, null).request('GET', `/versions?appId=${SEED.apps.todo}`)).status, 401);
  });

  it('POST /versions/sync: 202 in_progress with a new pending version that moves one stage per step; GET /versions/status follows it', async () => {
    const sync = await api.request('POST', '/versions/sync', { body: { appId: SEED.apps.todo, version: 'main' } });
    assert.equal(sync.status, 202);
    assert.deepEqual(obj(sync), { ok: true, status: 'in_progress', stage: 'pending', versionId: 'ver_todo_013', version: 'main', message: 'Main #13 is pending.' });
    const again = await api.request('POST', '/versions/sync', { body: { appId: SEED.apps.todo, version: 'Main' } });
    assert.equal(obj(again).versionId, 'ver_todo_013', 'a sync already running answers for it');
    const status = async (): Promise<Json> => obj(await api.request('GET', `/versions/status?appId=${SEED.apps.todo}&versionId=ver_todo_013`));
    const stages: unknown[] = [];
    for (let i = 0; i < 4; i++) {
      stages.push((await status()).stage);
      await emu.advance(STEP);
    }
    assert.deepEqual(stages, ['pending', 'stored', 'indexing', 'completed']);
    assert.deepEqual([(await status()).status, (await page('')).versions[0].versionId, (await page('')).versions[0].completedAtMs], ['completed', 'ver_todo_013', MANUAL_EPOCH + 3 * STEP]);
    const failed = obj(await api.request('GET', `/versions/status?appId=${SEED.apps.todo}&versionId=ver_todo_005`));
    assert.deepEqual([failed.ok, failed.status, typeof failed.error], [false, 'failed', 'string']);
    assert.equal(obj(await api.request('POST', '/versions/sync', { body: { appId: SEED.apps.todo, version: 'nope' } })).field, 'version');
    assert.equal(obj(await api.request('GET', `/versions/status?appId=${SEED.apps.todo}&versionId=ver_nope`)).field, 'versionId');
  });
});
