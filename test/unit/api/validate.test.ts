import * as assert from 'node:assert/strict';
import {
  ApiError, isApiError, validateAgentId, validateCreateTestGroupRequest, validateFollowUpRequest,
  validateStartAgentRequest,
} from '../../../src/api';

function refused(fn: () => unknown, field: RegExp): ApiError {
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
  return caught;
}

describe('api: validateStartAgentRequest', () => {
  const valid = { appId: ' app-1 ', prompt: '  Fix the\n\tlogin bug  ', model: ' model-a ' };

  it('fills in the documented defaults and trims identifiers, but never the prompt', () => {
    const out = validateStartAgentRequest(valid);
    assert.deepEqual(out, {
      appId: 'app-1', prompt: '  Fix the\n\tlogin bug  ', model: 'model-a',
      reasoningEffort: 'medium', permission: 'read_only',
    });
  });

  it('keeps every documented optional field, normalised, and drops undocumented ones', () => {
    const out = validateStartAgentRequest({
      ...valid,
      reasoningEffort: 'high', permission: 'allow_edits',
      permittedBranches: [' main ', 'feature/x'],
      completionWebhookUrl: ' https://hooks.example.com/done?x=1 ',
      userEmail: ' dev@example.com ',
      surprise: 'dropped',
    });
    assert.deepEqual(out, {
      appId: 'app-1', prompt: valid.prompt, model: 'model-a', reasoningEffort: 'high', permission: 'allow_edits',
      permittedBranches: ['main', 'feature/x'], completionWebhookUrl: 'https://hooks.example.com/done?x=1', userEmail: 'dev@example.com',
    });
  });

  it('treats null and blank optional fields as absent', () => {
    const out = validateStartAgentRequest({ ...valid, reasoningEffort: null, userEmail: '  ', completionWebhookUrl: '', permittedBranches: null });
    assert.deepEqual(Object.keys(out).sort(), ['appId', 'model', 'permission', 'prompt', 'reasoningEffort']);
  });

  it('keeps an empty branch list (it is a statement, not an omission)', () => {
    assert.deepEqual(validateStartAgentRequest({ ...valid, permittedBranches: [] }).permittedBranches, []);
  });

  it('refuses missing or blank required fields, naming the field', () => {
    refused(() => validateStartAgentRequest({ ...valid, appId: undefined }), /^appId is required/);
    refused(() => validateStartAgentRequest({ ...valid, appId: '   ' }), /^appId is empty/);
    refused(() => validateStartAgentRequest({ ...valid, appId: 42 }), /^appId must be text/);
    refused(() => validateStartAgentRequest({ ...valid, prompt: '' }), /^prompt is empty/);
    refused(() => validateStartAgentRequest({ ...valid, prompt: ' \n\t ' }), /^prompt is empty/);
    refused(() => validateStartAgentRequest({ ...valid, prompt: undefined }), /^prompt is required/);
    refused(() => validateStartAgentRequest({ ...valid, model: '' }), /^model is empty/);
    refused(() => validateStartAgentRequest(null), /start request must be an object/);
    refused(() => validateStartAgentRequest([valid]), /start request must be an object/);
  });

  it('refuses values outside the enums, listing the allowed ones', () => {
    refused(() => validateStartAgentRequest({ ...valid, reasoningEffort: 'extreme' }), /^reasoningEffort must be one of none, low, medium, high \(got "extreme"\)/);
    refused(() => validateStartAgentRequest({ ...valid, permission: 'write' }), /^permission must be one of read_only, allow_edits/);
    refused(() => validateStartAgentRequest({ ...valid, permission: 3 }), /^permission must be one of/);
  });

  it('checks userEmail as an email address', () => {
    for (const bad of ['user', 'user@', '@example.com', 'user@example', 'a b@example.com', 'user@exa mple.com', 'user@@example.com']) {
      refused(() => validateStartAgentRequest({ ...valid, userEmail: bad }), /^userEmail .* is not an email address/);
    }
    for (const good of ['user@example.com', 'first.last+tag@sub.example.co.uk', 'U_1@x-y.io']) {
      assert.equal(validateStartAgentRequest({ ...valid, userEmail: good }).userEmail, good);
    }
    refused(() => validateStartAgentRequest({ ...valid, userEmail: 7 }), /^userEmail must be an email address/);
  });

  it('checks completionWebhookUrl as an absolute http(s) URL', () => {
    for (const bad of ['/relative/path', 'hooks.example.com/x', 'ftp://example.com/x', 'javascript:alert(1)', 'https://', 'https://exa mple.com/']) {
      refused(() => validateStartAgentRequest({ ...valid, completionWebhookUrl: bad }), /^completionWebhookUrl .* must be an absolute http:\/\/ or https:\/\/ URL/);
    }
    assert.equal(validateStartAgentRequest({ ...valid, completionWebhookUrl: 'http://127.0.0.1:9999/hook' }).completionWebhookUrl, 'http://127.0.0.1:9999/hook');
  });

  it('checks permittedBranches is a list of non-empty strings and names the bad item', () => {
    refused(() => validateStartAgentRequest({ ...valid, permittedBranches: 'main' }), /^permittedBranches must be a list of branch names\.$/);
    refused(() => validateStartAgentRequest({ ...valid, permittedBranches: ['main', ' '] }), /item 2 is empty/);
    refused(() => validateStartAgentRequest({ ...valid, permittedBranches: ['main', 5] }), /item 2 is not text/);
  });

  it('checks the model against the known list only when one is given', () => {
    const knownModels = ['model-a', 'model-b'];
    assert.equal(validateStartAgentRequest(valid, { knownModels }).model, 'model-a');
    const e = refused(() => validateStartAgentRequest({ ...valid, model: 'model-z' }, { knownModels }), /^model "model-z" is not offered by the service; choose one of: model-a, model-b\.$/);
    assert.ok(isApiError(e));
    assert.equal(validateStartAgentRequest({ ...valid, model: 'model-z' }, { knownModels: [] }).model, 'model-z');
    assert.equal(validateStartAgentRequest({ ...valid, model: 'model-z' }).model, 'model-z');
  });

  it('keeps quoted user input short and on one line in messages', () => {
    const e = refused(() => validateStartAgentRequest({ ...valid, permission: `x\n${'y'.repeat(500)}` }), /^permission must be one of/);
    assert.ok(!e.message.includes('\n'));
    assert.ok(e.message.length < 200, e.message);
  });
});

describe('api: validateFollowUpRequest', () => {
  it('keeps the prompt as written and fills in no permission default', () => {
    assert.deepEqual(validateFollowUpRequest({ prompt: ' also add tests\n' }), { prompt: ' also add tests\n' });
  });

  it('keeps the documented optional fields', () => {
    assert.deepEqual(
      validateFollowUpRequest({ prompt: 'p', permission: 'allow_edits', permittedBranches: ['dev '], completionWebhookUrl: 'https://h.example.com/x' }),
      { prompt: 'p', permission: 'allow_edits', permittedBranches: ['dev'], completionWebhookUrl: 'https://h.example.com/x' },
    );
  });

  it('refuses fields a follow-up cannot change, and a blank prompt', () => {
    for (const field of ['appId', 'model', 'reasoningEffort', 'userEmail']) {
      refused(() => validateFollowUpRequest({ prompt: 'p', [field]: 'x' }), new RegExp(`^${field} cannot be set on a follow-up`));
    }
    refused(() => validateFollowUpRequest({ prompt: '   ' }), /^prompt is empty/);
    refused(() => validateFollowUpRequest({ prompt: 'p', permission: 'admin' }), /^permission must be one of/);
    refused(() => validateFollowUpRequest({ prompt: 'p', completionWebhookUrl: 'nope' }), /^completionWebhookUrl/);
  });
});

describe('api: validateCreateTestGroupRequest', () => {
  it('trims the name and keeps test id order', () => {
    assert.deepEqual(
      validateCreateTestGroupRequest({ appId: 'app', name: ' Smoke ', testIds: ['t3', ' t1', 't2'] }),
      { appId: 'app', name: 'Smoke', testIds: ['t3', 't1', 't2'] },
    );
  });

  it('keeps a null description, drops a blank one, trims a real one', () => {
    assert.equal(validateCreateTestGroupRequest({ appId: 'a', name: 'n', description: null }).description, null);
    assert.ok(!('description' in validateCreateTestGroupRequest({ appId: 'a', name: 'n', description: '  ' })));
    assert.equal(validateCreateTestGroupRequest({ appId: 'a', name: 'n', description: ' d ' }).description, 'd');
  });

  it('refuses missing fields and bad test ids', () => {
    refused(() => validateCreateTestGroupRequest({ name: 'n' }), /^appId is required/);
    refused(() => validateCreateTestGroupRequest({ appId: 'a', name: '' }), /^name is empty/);
    refused(() => validateCreateTestGroupRequest({ appId: 'a', name: 'n', testIds: ['t1', ''] }), /^testIds must be a list of test IDs; item 2 is empty/);
    refused(() => validateCreateTestGroupRequest({ appId: 'a', name: 'n', testIds: 't1' }), /^testIds must be a list of test IDs/);
    refused(() => validateCreateTestGroupRequest({ appId: 'a', name: 'n', description: 5 }), /^description must be text/);
  });
});

describe('api: validateAgentId', () => {
  it('trims and refuses blank and dot-segment ids', () => {
    assert.equal(validateAgentId(' ag_1 '), 'ag_1');
    refused(() => validateAgentId(''), /^agentId is required/);
    refused(() => validateAgentId('..'), /not a valid agent id/);
    refused(() => validateAgentId('.'), /not a valid agent id/);
    refused(() => validateAgentId(undefined), /^agentId is required/);
  });
});
