import * as assert from 'node:assert/strict';
import {
  ApiError, codeReviewListQuery, codeReviewQuery, validateReviewId, validateStartCodeReviewRequest, validateSyncVersionRequest, versionListQuery,
  versionStatusQuery,
} from '../../../src/api';

function refused(fn: () => unknown, field: RegExp): void {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof ApiError, `expected an ApiError, got ${String(caught)}`);
  assert.equal(caught.kind, 'invalid_input');
  assert.equal(caught.mayHaveReachedServer, false);
  assert.match(caught.message, field);
}

describe('api: validateStartCodeReviewRequest', () => {
  const valid = { appId: ' app-1 ', fromVersion: ' ver_100 ', toVersion: 'ver_101' };

  it('trims identifiers, keeps free text as typed, drops blank and undocumented fields', () => {
    assert.deepEqual(validateStartCodeReviewRequest({ ...valid, prompt: 'not a review field', title: '  ', description: null }), {
      appId: 'app-1', fromVersion: 'ver_100', toVersion: 'ver_101',
    });
    assert.deepEqual(validateStartCodeReviewRequest({
      ...valid, model: ' model-a ', title: ' Login review ', description: '  Look at\n sessions ', focusAreas: ' security ',
      completionWebhookUrl: ' https://hooks.example.com/done ', userEmail: ' ada@example.com ',
    }), {
      appId: 'app-1', fromVersion: 'ver_100', toVersion: 'ver_101', model: 'model-a', title: 'Login review',
      description: '  Look at\n sessions ', focusAreas: ' security ', completionWebhookUrl: 'https://hooks.example.com/done', userEmail: 'ada@example.com',
    });
  });

  it('requires appId, fromVersion and toVersion', () => {
    refused(() => validateStartCodeReviewRequest({ ...valid, appId: undefined }), /^appId is required/);
    refused(() => validateStartCodeReviewRequest({ ...valid, fromVersion: '  ' }), /^fromVersion is empty/);
    refused(() => validateStartCodeReviewRequest({ ...valid, toVersion: 101 }), /^toVersion must be text/);
    refused(() => validateStartCodeReviewRequest('app-1'), /must be an object/);
  });

  it('refuses comparing a version with itself', () => {
    refused(() => validateStartCodeReviewRequest({ ...valid, toVersion: ' ver_100' }), /fromVersion and toVersion are the same \("ver_100"\)/);
  });

  it('checks email and webhook formats as a run start does, and a model the service does not offer', () => {
    refused(() => validateStartCodeReviewRequest({ ...valid, userEmail: 'ada@' }), /userEmail "ada@" is not an email address/);
    refused(() => validateStartCodeReviewRequest({ ...valid, completionWebhookUrl: 'ftp://x.example/' }), /completionWebhookUrl .* must be an absolute http/);
    refused(() => validateStartCodeReviewRequest({ ...valid, title: 5 }), /^title must be text/);
    refused(() => validateStartCodeReviewRequest({ ...valid, model: 'model-z' }, { knownModels: ['model-a'] }), /model "model-z" is not offered/);
    assert.equal(validateStartCodeReviewRequest({ ...valid, model: 'model-a' }, { knownModels: ['model-a'] }).model, 'model-a');
  });
});

describe('api: code review and version queries', () => {
  it('validateReviewId trims and refuses empty, dot segments and non-strings', () => {
    assert.equal(validateReviewId(' rev_1 '), 'rev_1');
    refused(() => validateReviewId(''), /reviewId is required/);
    refused(() => validateReviewId('..'), /not a valid id/);
    refused(() => validateReviewId(7), /reviewId is required/);
  });

  it('list queries: appId required, limits positive whole numbers, a cursor sent as given', () => {
    assert.equal(codeReviewListQuery(' app 1 ').toString(), 'appId=app+1');
    assert.equal(codeReviewListQuery('app-1', { limit: 20 }).toString(), 'appId=app-1&limit=20');
    assert.equal(codeReviewQuery(undefined).toString(), '');
    assert.equal(codeReviewQuery(50).toString(), 'historyLimit=50');
    assert.equal(versionListQuery('app-1', { version: ' main ', cursor: ' c/2 ', limit: 5 }).toString(), 'appId=app-1&version=main&cursor=+c%2F2+&limit=5');
    refused(() => codeReviewListQuery(''), /appId is empty/);
    refused(() => versionListQuery(undefined, { version: 'main' }), /appId is required/);
    for (const bad of [0, -1, 2.5, '10', Number.NaN]) {
      refused(() => codeReviewListQuery('app-1', { limit: bad as number }), /limit must be a whole number of at least 1/);
      refused(() => codeReviewQuery(bad), /historyLimit must be a whole number/);
    }
  });
});

describe('api: versions one branch at a time (version C)', () => {
  it('GET /versions is never asked without a branch', () => {
    refused(() => versionListQuery('app-1', {} as unknown as { version: string }), /version is required/);
    refused(() => versionListQuery('app-1', { version: '  ' }), /version is empty|version is required/);
    assert.equal(versionListQuery('app-1', { version: 'Login redirect fix' }).toString(), 'appId=app-1&version=Login+redirect+fix');
  });

  it('a sync names the app and the branch; its status the app and the version', () => {
    assert.deepEqual(validateSyncVersionRequest({ appId: ' app-1 ', version: ' feature/dark-mode ', extra: 1 }), { appId: 'app-1', version: 'feature/dark-mode' });
    refused(() => validateSyncVersionRequest({ appId: 'app-1' }), /version is required/);
    refused(() => validateSyncVersionRequest({ version: 'main' }), /appId is required/);
    assert.equal(versionStatusQuery('app-1', ' ver_9 ').toString(), 'appId=app-1&versionId=ver_9');
    refused(() => versionStatusQuery('app-1', ''), /versionId is required/);
  });
});
