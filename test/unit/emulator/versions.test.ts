import assert from 'node:assert/strict';
import { MANUAL_EPOCH, NEVER_SYNCED_BRANCH, SEED, startEmulator, VERSION_BRANCHES, VERSIONS_PAGE, type Emulator } from '../../emulator/index';
import { admin, ApiCaller, obj, testAdmin, waitFor, type CallResult, type Json } from '../../emulator/testing';

const STEP = 1000;
const HOUR = 60 * 60 * 1000;

describe('emulator: versions under B (deployed shapes)', () => {
  let emu: Emulator;
  let api: ApiCaller;
  const page = async (q: string): Promise<{ versions: Json[]; nextCursor: string | null }> => {
    const result = await api.request('GET', `/versions?appId=${SEED.apps.todo}${q}`);
    assert.equal(result.status, 200, result.text);
    return obj(result) as { versions: Json[]; nextCursor: string | null };
  };

  before(async () => {
    emu = await startEmulator({ clock: 'manual', stepMs: STEP, preset: 'deployed', wider: 'B', settings: { staleReadMs: null, staleStatusAfterFollowUpMs: null } });
    api = new ApiCaller(emu, emu.tokens.default);
  });
  after(() => emu.close());
  beforeEach(() => emu.reset());

  it('GET /versions: newest first, every field, ISO and ms times, every stage over three branches (the fourth never synced)', async () => {
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
    assert.deepEqual(new Set(versions.map((v) => v.version)), new Set(VERSION_BRANCHES.filter((b) => b !== NEVER_SYNCED_BRANCH).map((b) => b.version)));
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

  it('POST /versions/sync: 202 in_progress with a new pending version that moves one stage per step; GET /versions/status follows it (no appVersion before C)', async () => {
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
    assert.equal(obj(await api.request('GET', `/versions/status?appId=${SEED.apps.todo}&versionId=ver_nope`)).field, 'versionId');
  });
});

describe('emulator: versions under C, the default (deployed shapes)', () => {
  let emu: Emulator;
  let api: ApiCaller;
  const list = (q: string): Promise<CallResult> => api.request('GET', `/versions?appId=${SEED.apps.todo}${q}`);
  const page = async (q: string): Promise<{ versions: Json[]; nextCursor: string | null }> => {
    const result = await list(q);
    assert.equal(result.status, 200, result.text);
    return obj(result) as { versions: Json[]; nextCursor: string | null };
  };
  const sync = async (version: string): Promise<CallResult> => api.request('POST', '/versions/sync', { body: { appId: SEED.apps.todo, version } });
  /** Starts a sync whose answer waits, and resolves once the emulator holds it (so the clock can move under it). */
  const heldSync = async (version: string): Promise<{ answer: Promise<CallResult> }> => {
    const before = emu.requests.length;
    const answer = sync(version);
    await waitFor(() => emu.requests.length > before, 2_000, 'the sync to arrive');
    return { answer };
  };
  const status = async (versionId: string): Promise<Json> => obj(await api.request('GET', `/versions/status?appId=${SEED.apps.todo}&versionId=${versionId}`));

  before(async () => {
    emu = await startEmulator({ clock: 'manual', stepMs: STEP, preset: 'deployed', settings: { staleReadMs: null, staleStatusAfterFollowUpMs: null } });
    api = new ApiCaller(emu, emu.tokens.default);
  });
  after(() => emu.close());
  beforeEach(() => emu.reset());

  it('GET /versions needs `version` (400 field version); a branch by id or label lists only its completed versions, newest sync first, with C\'s fields', async () => {
    assert.equal(emu.state.wider, 'C');
    for (const q of ['', '&version=', '&limit=5']) {
      const refused = await list(q);
      assert.deepEqual([refused.status, obj(refused).code, obj(refused).field], [400, 'invalid_request', 'version'], q);
    }
    const main = await page('&version=main');
    assert.deepEqual(main.versions.map((v) => v.versionId), ['ver_todo_010', 'ver_todo_007', 'ver_todo_004', 'ver_todo_002', 'ver_todo_001'], 'Main #12 (pending) left out');
    assert.equal(main.nextCursor, null);
    assert.deepEqual(Object.keys(main.versions[0]).sort(), [
      'completedAt', 'completedAtMs', 'createdAt', 'createdAtMs', 'lastChange', 'stage', 'syncSource', 'syncedAt', 'syncedAtMs', 'version', 'versionDisplay', 'versionId',
    ]);
    const newest = main.versions[0];
    assert.deepEqual([newest.version, newest.versionDisplay, newest.stage, typeof newest.lastChange], ['main', 'Main #10', 'completed', 'number']);
    assert.ok((newest.lastChange as number) < (newest.syncedAtMs as number), 'the branch changed before its snapshot');
    const timeouts = await page('&version=Request%20timeouts');
    assert.deepEqual(timeouts.versions.map((v) => [v.versionId, v.version]), [['ver_todo_006', 'feature/request-timeouts'], ['ver_todo_003', 'feature/request-timeouts']], 'the label selects; stored, indexing left out');
    assert.deepEqual((await page('&version=fix/login-redirect')).versions.map((v) => v.versionId), ['ver_todo_008'], 'the failed one left out');
    assert.deepEqual(await page(`&version=${encodeURIComponent(NEVER_SYNCED_BRANCH.version)}`), { versions: [], nextCursor: null }, 'a branch never synced');
    assert.deepEqual(await page('&version=Dark%20mode'), { versions: [], nextCursor: null });
    assert.deepEqual(await page('&version=feature/nope'), { versions: [], nextCursor: null }, 'an unknown branch: the same');
    const two = await page('&version=main&limit=2');
    assert.deepEqual((await page(`&version=main&limit=2&cursor=${String(two.nextCursor)}`)).versions.map((v) => v.versionId), ['ver_todo_004', 'ver_todo_002']);
    const cut = main.versions[2].syncedAtMs as number;
    assert.deepEqual((await page(`&version=main&syncedAfter=${new Date(cut).toISOString()}`)).versions.map((v) => v.versionId), ['ver_todo_010', 'ver_todo_007']);
  });

  it('POST /versions/sync of the never-synced branch: 202 while it runs (no wait); status follows with appVersion; then GET /versions lists it', async () => {
    const started = await sync('Dark mode');
    assert.equal(started.status, 202);
    assert.deepEqual(obj(started), {
      ok: true, status: 'in_progress', stage: 'pending', versionId: 'ver_todo_013', version: 'feature/dark-mode', appVersion: 'feature/dark-mode', message: 'Dark mode #13 is pending.',
    });
    await emu.advance(2 * STEP);
    assert.deepEqual([(await status('ver_todo_013')).stage, (await page('&version=feature/dark-mode')).versions], ['indexing', []], 'not listed before it completed');
    await emu.advance(STEP);
    const done = await status('ver_todo_013');
    assert.deepEqual([done.ok, done.status, done.stage, done.appVersion, 'error' in done], [true, 'completed', 'completed', 'feature/dark-mode', false]);
    assert.deepEqual((await page('&version=feature/dark-mode')).versions.map((v) => [v.versionId, v.versionDisplay, v.syncSource]), [['ver_todo_013', 'Dark mode #13', 'manual']]);
  });

  it('POST /versions/sync waits the admin\'s number of steps: 200 completed when the sync ends within it, 202 when it does not', async () => {
    await testAdmin(emu.adminUrl).setSyncWait(5);
    const { answer } = await heldSync('main');
    await emu.advance(STEP);
    await emu.advance(STEP);
    await emu.advance(STEP);
    const done = await answer;
    assert.equal(done.status, 200, 'answered once the sync completed, three steps in');
    assert.deepEqual([obj(done).status, obj(done).stage, obj(done).versionId], ['completed', 'completed', 'ver_todo_013']);
    await testAdmin(emu.adminUrl).setSyncWait(2);
    const { answer: held } = await heldSync('main');
    await emu.advance(2 * STEP);
    const running = await held;
    assert.deepEqual([running.status, obj(running).status, obj(running).stage], [202, 'in_progress', 'indexing']);
    assert.equal((await admin(emu, 'PUT', '/sync-wait', { steps: -1 })).status, 400);
  });

  it('a sync fails: a branch the app does not have at once (200, no version), or a branch the admin made fail, saying why', async () => {
    const unknown = await sync('feature/nope');
    assert.equal(unknown.status, 200);
    assert.deepEqual(obj(unknown), {
      ok: false, status: 'failed', stage: 'failed', versionId: null, version: 'feature/nope', appVersion: 'feature/nope',
      message: 'Branch \'feature/nope\' could not be synced.', error: 'Branch \'feature/nope\' was not found in the app',
    });
    await testAdmin(emu.adminUrl).failSync('main', 'The app export timed out after 120 s.');
    const failing = await sync('Main');
    assert.deepEqual([failing.status, obj(failing).status], [202, 'in_progress']);
    await emu.advance(STEP);
    const failed = await status(String(obj(failing).versionId));
    assert.deepEqual([failed.ok, failed.status, failed.stage, failed.error], [false, 'failed', 'failed', 'The app export timed out after 120 s.']);
    await testAdmin(emu.adminUrl).setSyncWait(3);
    const { answer } = await heldSync('main');
    await emu.advance(STEP);
    const within = await answer;
    assert.deepEqual([within.status, obj(within).status], [200, 'failed'], 'failed within the wait: 200');
    await testAdmin(emu.adminUrl).failSync('main', null);
    await testAdmin(emu.adminUrl).setSyncWait(0);
    assert.equal(obj(await sync('main')).status, 'in_progress', 'syncs of the branch succeed again');
    assert.equal((await admin(emu, 'PUT', '/sync-failure', { version: 'nope', error: 'x' })).status, 400);
    assert.deepEqual((await page('&version=main')).versions[0].versionId, 'ver_todo_010', 'failed syncs are not listed');
  });
});
