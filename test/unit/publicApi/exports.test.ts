// What activate() hands to other extensions (src/publicApi/contribution.ts): getAPI alone, unless
// the test harness both set AGENT_RUNS_TEST_HOOKS=1 and installed dist/testHooks.js beside it.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { activationExports, registerPublicApi, TEST_HOOKS_ENV } from '../../../src/publicApi/contribution';
import type { Deps } from '../../../src/run/deps';

describe('public API: what activate() exports', () => {
  const saved = process.env[TEST_HOOKS_ENV];
  const hooksFile = path.join(__dirname, '..', '..', '..', 'src', 'publicApi', 'testHooks.js');
  afterEach(() => {
    if (saved === undefined) delete process.env[TEST_HOOKS_ENV];
    else process.env[TEST_HOOKS_ENV] = saved;
    fs.rmSync(hooksFile, { force: true });
  });

  const { exports } = registerPublicApi({ subscriptions: [] } as unknown as vscode.ExtensionContext, {} as Deps, () => { throw new Error('not asked'); });
  let built = 0;
  const testApi = () => {
    built++;
    return { ...exports, ledger: 'internal' };
  };

  it('getAPI alone without the harness: no environment, or no test hooks installed', () => {
    delete process.env[TEST_HOOKS_ENV];
    fs.writeFileSync(hooksFile, '');
    assert.deepEqual(Object.keys(activationExports(exports, testApi)), ['getAPI']);
    fs.rmSync(hooksFile);
    process.env[TEST_HOOKS_ENV] = '1';
    assert.deepEqual(Object.keys(activationExports(exports, testApi)), ['getAPI']);
    assert.equal((activationExports(exports, testApi) as unknown as { ledger?: unknown }).ledger, undefined);
  });

  it('the test API beside getAPI when the harness set the environment and installed the hooks, built on its first read', () => {
    process.env[TEST_HOOKS_ENV] = '1';
    fs.writeFileSync(hooksFile, '');
    built = 0;
    const api = activationExports(exports, testApi) as unknown as { getAPI: unknown; ledger: unknown; then?: unknown };
    assert.equal(typeof api.getAPI, 'function');
    // The extension host asks whether the exports are a promise: that is no read of the test API.
    assert.equal(api.then, undefined);
    assert.equal(built, 0);
    assert.equal(api.ledger, 'internal');
    assert.equal(api.ledger, 'internal');
    assert.equal(built, 1);
  });

  it('refuses a version it does not have, saying which it has', () => {
    assert.throws(() => exports.getAPI(2 as 1), /Agent Runs has no API version 2; it offers version 1\./);
  });
});
