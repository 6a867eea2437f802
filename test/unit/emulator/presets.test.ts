import assert from 'node:assert/strict';
import { PRESETS, REAL_STALE_READS, SEED, startEmulator, UNKNOWN_FIELDS } from '../../emulator/index';
import { admin, ApiCaller, call, obj, runToEnd, spawnCli, waitFor, type Json } from '../../emulator/testing';

const start = (overrides: Json = {}): Json => ({ appId: SEED.apps.todo, prompt: 'preset', model: 'hosted/auto', ...overrides });

describe('emulator: presets', () => {
  it('startEmulator() keeps the reference habits: whole histories, no Retry-After, no unknown fields', async () => {
    const emu = await startEmulator({ clock: 'manual' });
    try {
      assert.deepEqual(emu.state.settings, PRESETS.reference);
      assert.deepEqual(PRESETS.reference, {
        historyDefault: null, historyMax: null, retryAfterSeconds: null, unknownFields: false, unknownValues: false,
        staleReadMs: null, staleReadEvery: 1, staleStatusAfterFollowUpMs: null, notFoundAfterStartMs: null, shapes: 'reference', wideApiVersion: 'A',
      });
    } finally {
      await emu.close();
    }
  });

  it('preset real: capped history, Retry-After on 503, unknown fields, all at once; reset() keeps them', async () => {
    const emu = await startEmulator({ clock: 'manual', preset: 'real' });
    try {
      assert.deepEqual(emu.state.settings, { historyDefault: 20, historyMax: 500, retryAfterSeconds: 5, unknownFields: true, unknownValues: false, ...REAL_STALE_READS, shapes: 'reference', wideApiVersion: 'A' });
      const api = new ApiCaller(emu, emu.tokens.default);
      const started = obj(await api.start(start({ prompt: '[[long]]' })));
      for (const key of UNKNOWN_FIELDS.ack) assert.ok(key in started, key);
      const agent = await runToEnd(emu, api, String(started.agentId));
      assert.equal((agent.history as Json[]).length, 20);
      assert.equal((agent.history as Json[])[0].sequence, 287, 'the first returned sequence shows what is missing');
      for (const key of UNKNOWN_FIELDS.agent) assert.ok(key in agent, key);
      emu.inject({ status: 503 });
      assert.equal((await api.get(String(started.agentId))).headers.get('retry-after'), '5');

      await admin(emu, 'PATCH', '/settings', { preset: 'reference' });
      emu.reset();
      assert.deepEqual(emu.state.settings, PRESETS.real);
    } finally {
      await emu.close();
    }
  });

  it('settings change a preset: the preset first, then the seed\'s settings, then `settings`', async () => {
    const emu = await startEmulator({ preset: 'real', seed: { settings: { historyDefault: 10, unknownValues: true } }, settings: { historyDefault: 30, retryAfterSeconds: null } });
    try {
      assert.deepEqual(emu.state.settings, { historyDefault: 30, historyMax: 500, retryAfterSeconds: null, unknownFields: true, unknownValues: true, ...REAL_STALE_READS, shapes: 'reference', wideApiVersion: 'A' });
    } finally {
      await emu.close();
    }
  });

  it('CLI --preset real starts with those settings; an unknown preset stops with an error', async () => {
    const run = spawnCli(['--port', '0', '--preset', 'real', '--quiet']);
    const { child, exited } = run;
    const printed = () => run.output();
    try {
      await waitFor(() => /Hint:/.test(printed()), 5_000, 'the CLI banner');
      const output = printed();
      assert.match(output, /Preset:\s+real /);
      const adminUrl = /Admin:\s+(\S+)/.exec(output)?.[1] ?? '';
      assert.deepEqual(obj(await call(`${adminUrl}/settings`, 'GET')), PRESETS.real);
    } finally {
      child.kill('SIGINT');
    }
    assert.equal(await exited, 0);

    const bad = spawnCli(['--port', '0', '--preset', 'fake']);
    assert.equal(await bad.exited, 1);
    assert.match(bad.output(), /--preset must be one of reference, real, deployed/);
  });

  it('CLI --preset deployed serves the deployed shapes: a start answers 202, the retired-model run is there', async () => {
    const run = spawnCli(['--port', '0', '--preset', 'deployed', '--quiet']);
    try {
      await waitFor(() => /Hint:/.test(run.output()), 5_000, 'the CLI banner');
      const output = run.output();
      assert.match(output, /Preset:\s+deployed /);
      const adminUrl = /Admin:\s+(\S+)/.exec(output)?.[1] ?? '';
      const baseUrl = /Base URL:\s+(\S+)/.exec(output)?.[1] ?? '';
      const token = /Token:\s+(\S+)/.exec(output)?.[1] ?? '';
      assert.deepEqual(obj(await call(`${adminUrl}/settings`, 'GET')), PRESETS.deployed);
      assert.match(output, /\(wider API: version C\)/, 'the newest published version by default');
      assert.deepEqual(obj(await call(`${adminUrl}/wider`, 'GET')), { version: 'C' });
      const started = await call(`${baseUrl}/agents`, 'POST', { token, body: start() });
      assert.equal(started.status, 202);
      assert.equal(obj(await call(`${baseUrl}/agents/${SEED.agents.retiredModel}`, 'GET', { token })).model, 'anthropic/claude-sonnet-4');
    } finally {
      run.child.kill('SIGINT');
    }
    assert.equal(await run.exited, 0);
  });
});
