import assert from 'node:assert/strict';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { MODELS, MODEL_IDS, SEED, startEmulator, type Emulator } from '../../emulator/index';
import { admin, ApiCaller, call, obj, runToEnd, type CallResult, type Json } from '../../emulator/testing';

const DOC_ID = 'https://emulator.invalid/openapi.json';
const { apps, emails } = SEED;

/** JSON Pointer escaping for one path segment. */
const pointer = (segment: string): string => segment.replace(/~/g, '~0').replace(/\//g, '~1');

interface Sample {
  name: string;
  method: string;
  /** The documented operation whose responses describe this one: path template and method. */
  template: string;
  result: CallResult;
}

describe('emulator: OpenAPI document', () => {
  let emu: Emulator;
  let api: ApiCaller;
  let doc: Json;
  let ajv: Ajv2020;

  /** The schema of `template`/`method` for `status` (or `default`) in the served document. */
  function responseValidator(template: string, method: string, status: number): (value: unknown) => string | undefined {
    const responses = ((doc.paths as Json)[template] as Record<string, { responses: Json }>)[method.toLowerCase()].responses;
    const key = String(status) in responses ? String(status) : 'default';
    assert.ok(key in responses, `${method} ${template} documents ${status} or a default`);
    const validate = ajv.getSchema(`${DOC_ID}#/paths/${pointer(template)}/${method.toLowerCase()}/responses/${key}/content/${pointer('application/json')}/schema`);
    assert.ok(validate, `schema for ${method} ${template} ${key}`);
    return (value) => (validate(value) ? undefined : ajv.errorsText(validate.errors));
  }

  function schemaValidator(name: string): (value: unknown) => boolean {
    const validate = ajv.getSchema(`${DOC_ID}#/components/schemas/${name}`);
    assert.ok(validate, name);
    return (value) => validate(value) === true;
  }

  before(async () => {
    emu = await startEmulator({ clock: 'manual' });
    api = new ApiCaller(emu, emu.tokens.default);
    const served = await new ApiCaller(emu, null).request('GET', '/openapi.json');
    assert.equal(served.status, 200);
    doc = obj(served);
    ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats(ajv);
    // Keywords of the OpenAPI document around the schemas, and our extension: not JSON Schema.
    ajv.addVocabulary(['openapi', 'info', 'servers', 'security', 'tags', 'paths', 'webhooks', 'components', 'x-model-kinds']);
    ajv.addSchema({ ...doc, $id: DOC_ID });
  });
  after(() => emu.close());
  beforeEach(() => emu.reset());

  it('is a valid OpenAPI 3.1 document', async () => {
    const { Validator } = await import('@seriousme/openapi-schema-validator');
    const validator = new Validator();
    const result = await validator.validate(doc);
    assert.deepEqual(result.errors, undefined);
    assert.equal(result.valid, true);
    assert.equal(validator.version, '3.1');
  });

  it('the validator is not a rubber stamp: a broken copy fails', async () => {
    const { Validator } = await import('@seriousme/openapi-schema-validator');
    const broken = structuredClone(doc);
    delete (broken.info as Json).version;
    assert.equal((await new Validator().validate(broken)).valid, false);
  });

  it('describes the servers, the bearer scheme and the public schema endpoint', () => {
    assert.deepEqual(doc.servers, [{ url: emu.baseUrl, description: 'This emulator' }]);
    assert.deepEqual(doc.security, [{ bearerAuth: [] }]);
    const schemes = (doc.components as Json).securitySchemes as Json;
    assert.deepEqual({ ...(schemes.bearerAuth as Json), description: undefined }, { type: 'http', scheme: 'bearer', bearerFormat: 'agr_<secret>', description: undefined });
    const paths = doc.paths as Record<string, Record<string, Json>>;
    assert.deepEqual(Object.keys(paths).sort(), ['/agents', '/agents/{agentId}', '/agents/{agentId}/messages', '/openapi.json', '/test-groups']);
    assert.deepEqual(paths['/openapi.json'].get.security, []);
    assert.deepEqual(Object.keys(paths['/agents'])[0], 'post');
    assert.deepEqual(Object.keys(paths['/agents/{agentId}']), ['get']);
  });

  it('request bodies carry the emulator\'s own required fields, enums and formats', () => {
    const schemas = (doc.components as Json).schemas as Record<string, { required: string[]; properties: Record<string, Json>; additionalProperties: boolean }>;
    const startBody = schemas.StartAgentRequest;
    assert.deepEqual(startBody.required, ['appId', 'prompt', 'model']);
    assert.deepEqual(startBody.properties.model.enum, [...MODEL_IDS]);
    assert.equal(MODEL_IDS.length, 10);
    assert.deepEqual(startBody.properties.model['x-model-kinds'], Object.fromEntries(MODELS.map((m) => [m.id, m.kind])));
    assert.deepEqual(startBody.properties.reasoningEffort.enum, ['none', 'low', 'medium', 'high']);
    assert.equal(startBody.properties.reasoningEffort.default, 'medium');
    assert.deepEqual(startBody.properties.permission.enum, ['read_only', 'allow_edits']);
    assert.equal(startBody.properties.permission.default, 'read_only');
    assert.equal(startBody.properties.userEmail.format, 'email');
    assert.equal(startBody.properties.completionWebhookUrl.format, 'uri');
    assert.equal(startBody.additionalProperties, false);

    const followUp = schemas.FollowUpRequest;
    assert.deepEqual(followUp.required, ['prompt']);
    assert.deepEqual(Object.keys(followUp.properties).sort(), ['completionWebhookUrl', 'permission', 'permittedBranches', 'prompt']);

    const group = schemas.CreateTestGroupRequest;
    assert.deepEqual(group.required, ['appId', 'name']);
    assert.deepEqual(group.properties.description.type, ['string', 'null']);
    assert.equal(group.properties.testIds.type, 'array');
  });

  it('real responses validate against the documented response schemas', async () => {
    const samples: Sample[] = [];
    const take = (name: string, method: string, template: string, result: CallResult): void => {
      samples.push({ name, method, template, result });
    };
    const start = (overrides: Json = {}): Json => ({ appId: apps.todo, prompt: 'schema [[tools]]', model: 'hosted/auto', ...overrides });

    const started = await api.start(start({ permission: 'allow_edits', permittedBranches: ['main'] }));
    take('start', 'POST', '/agents', started);
    const id = String(obj(started).agentId);
    take('get queued', 'GET', '/agents/{agentId}', await api.get(id));
    await emu.advance(3_000);
    take('get running', 'GET', '/agents/{agentId}', await api.get(id));
    take('follow-up ack (busy)', 'POST', '/agents/{agentId}/messages', await api.followUp(id, { prompt: 'more' }));
    await runToEnd(emu, api, id);
    take('get completed', 'GET', '/agents/{agentId}', await api.get(id));
    take('follow-up ack (re-open)', 'POST', '/agents/{agentId}/messages', await api.followUp(id, { prompt: 'again' }));
    const failed = await api.startOk(start({ prompt: '[[fail]]' }));
    await runToEnd(emu, api, failed);
    take('get error', 'GET', '/agents/{agentId}', await api.get(failed));
    await admin(emu, 'POST', `/agents/${failed}/messages`, { role: 'system', content: 'injected' });
    take('test group', 'POST', '/test-groups', await api.createGroup({ appId: apps.todo, name: 'G', description: null, testIds: ['a', 'b'] }));

    const noAuth = new ApiCaller(emu, null);
    take('401', 'POST', '/agents', await noAuth.start(start()));
    take('401 get', 'GET', '/agents/{agentId}', await noAuth.get(id));
    take('402 plan', 'POST', '/agents', await new ApiCaller(emu, emu.tokens.noApiAccess).start(start()));
    take('402 plan get', 'GET', '/agents/{agentId}', await new ApiCaller(emu, emu.tokens.noApiAccess).get(id));
    take('402 credits', 'POST', '/agents', await new ApiCaller(emu, emu.tokens.noCredits).start(start({ appId: apps.broke })));
    take('400 invalid', 'POST', '/agents', await api.start(start({ model: 'nope' })));
    take('400 email', 'POST', '/agents', await api.start(start({ model: 'openai/gpt-5' })));
    take('403 member', 'POST', '/agents', await api.start(start({ model: 'openai/gpt-5', userEmail: emails.stranger })));
    take('403 creds', 'POST', '/agents', await api.start(start({ model: 'openai/gpt-5', userEmail: emails.noCreds })));
    take('403 unverified', 'POST', '/agents', await api.start(start({ appId: apps.draft })));
    take('403 scope', 'POST', '/agents', await new ApiCaller(emu, emu.tokens.scoped).start(start({ appId: apps.shop })));
    take('404 app', 'POST', '/agents', await api.start(start({ appId: 'app_nope' })));
    take('404 agent', 'GET', '/agents/{agentId}', await api.get('agt_nope'));
    take('404 follow-up', 'POST', '/agents/{agentId}/messages', await api.followUp('agt_nope', { prompt: 'x' }));
    take('400 follow-up', 'POST', '/agents/{agentId}/messages', await api.followUp(id, { prompt: 'x', model: 'hosted/auto' }));
    take('400 group', 'POST', '/test-groups', await api.createGroup({ appId: apps.todo }));
    take('403 group', 'POST', '/test-groups', await api.createGroup({ appId: apps.draft, name: 'x' }));
    take('413', 'POST', '/agents', await api.start(start({ prompt: 'x'.repeat(1_100_000) })));
    take('415', 'POST', '/test-groups', await api.request('POST', '/test-groups', { rawBody: 'name=x', contentType: 'application/x-www-form-urlencoded' }));
    // A wrong method has no operation of its own: its 405 falls under the path's operation `default`.
    take('405 (default)', 'POST', '/agents', await api.request('GET', '/agents'));
    emu.inject({ status: 429, headers: { 'retry-after': '1' } });
    take('429 (default)', 'GET', '/agents/{agentId}', await api.get(id));

    const statuses = new Set(samples.map((s) => s.result.status));
    for (const status of [200, 201, 202, 400, 401, 402, 403, 404, 405, 413, 415, 429]) assert.ok(statuses.has(status), `a sample with ${status}`);
    for (const sample of samples) {
      const problem = responseValidator(sample.template, sample.method, sample.result.status)(sample.result.json);
      assert.equal(problem, undefined, `${sample.name} (HTTP ${sample.result.status}): ${problem ?? ''}\n${sample.result.text.slice(0, 300)}`);
    }
  });

  it('a completion webhook payload validates against CompletionWebhookPayload', async () => {
    const id = await api.startOk({ appId: apps.todo, prompt: 'hook', model: 'hosted/auto', completionWebhookUrl: 'https://hooks.example.com/x' });
    await runToEnd(emu, api, id);
    const delivery = emu.webhookDeliveries[0];
    assert.equal(delivery.state, 'refused');
    assert.equal(schemaValidator('CompletionWebhookPayload')(JSON.parse(delivery.body)), true);
  });

  it('the response schemas reject what the emulator must never send', () => {
    const agentRun = schemaValidator('AgentStarted');
    assert.equal(agentRun({ agentId: 'a', kind: 'agent', status: 'queued', appId: 'x', projectId: 'p', createdAt: 1 }), true);
    assert.equal(agentRun({ kind: 'agent', status: 'queued', appId: 'x', projectId: 'p', createdAt: 1 }), false);
    assert.equal(agentRun({ agentId: 'a', kind: 'agent', status: 'paused', appId: 'x', projectId: 'p', createdAt: 1 }), false);
    assert.equal(schemaValidator('AgentMessage')({ id: 'm', sequence: 0, role: 'user', content: '', createdAt: 1 }), false);
    assert.equal(schemaValidator('Error401')({ error: 'x', code: 'invalid_request' }), false);
    assert.equal(schemaValidator('Error402')({ error: 'x', code: 'agent_not_found' }), false);
    assert.equal(schemaValidator('Error')({ code: 'invalid_request' }), false);
    assert.equal(schemaValidator('Error')({ error: 'x', code: 7 }), false);
  });

  it('request schemas accept exactly what the emulator accepts', async () => {
    const startSchema = schemaValidator('StartAgentRequest');
    const followUpSchema = schemaValidator('FollowUpRequest');
    const groupSchema = schemaValidator('CreateTestGroupRequest');
    const base: Json = { appId: apps.todo, prompt: 'p', model: 'hosted/auto' };
    const startBodies: Json[] = [
      base,
      { ...base, reasoningEffort: 'none', permission: 'allow_edits', permittedBranches: ['a', 'b'], completionWebhookUrl: 'http://127.0.0.1:9/x', userEmail: emails.dev },
      { ...base, prompt: '' },
      { ...base, prompt: ' \n ' },
      { ...base, model: 'hosted/unknown' },
      { ...base, reasoningEffort: 'max' },
      { ...base, permission: null },
      { ...base, permittedBranches: [''] },
      { ...base, permittedBranches: [1] },
      { ...base, completionWebhookUrl: 'ftp://host/x' },
      { ...base, completionWebhookUrl: 'no url' },
      { ...base, userEmail: 'a@b' },
      { ...base, userEmail: 'not-an-email' },
      { ...base, extra: 1 },
      { prompt: 'p', model: 'hosted/auto' },
    ];
    for (const body of startBodies) {
      const result = await api.start(body);
      const rejected = result.status === 400 && obj(result).code === 'invalid_request';
      assert.equal(startSchema(body), !rejected, `${JSON.stringify(body)} → HTTP ${result.status}`);
    }

    const id = await api.startOk(base);
    const followUps: Json[] = [{ prompt: 'p' }, { prompt: 'p', permission: 'allow_edits', permittedBranches: [] }, { prompt: '' }, { prompt: 'p', model: 'hosted/auto' }, { prompt: 'p', permittedBranches: 'main' }];
    for (const body of followUps) {
      const result = await api.followUp(id, body);
      assert.equal(followUpSchema(body), result.status === 202, `${JSON.stringify(body)} → HTTP ${result.status}`);
    }

    const groups: Json[] = [
      { appId: apps.todo, name: 'n' }, { appId: apps.todo, name: 'n', description: null, testIds: ['t'] }, { appId: apps.todo, name: '' },
      { appId: apps.todo, name: 'n', testIds: [2] }, { appId: apps.todo, name: 'n', description: {} },
    ];
    for (const body of groups) {
      const result = await api.createGroup(body);
      assert.equal(groupSchema(body), result.status === 201, `${JSON.stringify(body)} → HTTP ${result.status}`);
    }
    assert.equal((await call(`${emu.baseUrl}/openapi.json`, 'GET')).status, 200);
  });
});
