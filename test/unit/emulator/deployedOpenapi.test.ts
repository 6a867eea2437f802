import assert from 'node:assert/strict';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { MODEL_IDS, READABLE_MODEL_IDS, RETIRED_MODELS, SEED, startEmulator, type Emulator } from '../../emulator/index';
import { admin, ApiCaller, obj, runToEnd, testAdmin, type CallResult, type Json } from '../../emulator/testing';

const DOC_ID = 'https://emulator.invalid/deployed/openapi.json';
const pointer = (segment: string): string => segment.replace(/~/g, '~0').replace(/\//g, '~1');
type Doc = Json & { paths: Record<string, Record<string, { responses: Json; parameters?: Json[] }>>; components: { schemas: Record<string, Json & { properties: Record<string, Json> }> } };

async function servedDocument(emu: Emulator): Promise<Doc> {
  const served = await new ApiCaller(emu, null).request('GET', '/openapi.json');
  assert.equal(served.status, 200);
  return obj(served) as Doc;
}

describe('emulator: the deployed profile\'s OpenAPI document', () => {
  let emu: Emulator;
  let api: ApiCaller;
  let doc: Doc;
  let ajv: Ajv2020;

  function check(template: string, method: string, result: CallResult): void {
    const responses = doc.paths[template][method.toLowerCase()].responses;
    const key = String(result.status);
    assert.ok(key in responses, `${method} ${template} documents ${key}`);
    const validate = ajv.getSchema(`${DOC_ID}#/paths/${pointer(template)}/${method.toLowerCase()}/responses/${key}/content/${pointer('application/json')}/schema`);
    assert.ok(validate, `${method} ${template} ${key}`);
    assert.ok(validate(result.json), `${method} ${template} ${key}: ${ajv.errorsText(validate.errors)}`);
  }

  /** The document as served now (it follows the published version in force), and a validator of it. */
  async function load(): Promise<void> {
    doc = await servedDocument(emu);
    // Nullable fields are `type: [X, "null"]`, as OpenAPI 3.1 writes them.
    ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
    addFormats(ajv);
    ajv.addVocabulary(['openapi', 'info', 'servers', 'security', 'tags', 'paths', 'webhooks', 'components', 'x-model-kinds']);
    ajv.addSchema({ ...doc, $id: DOC_ID });
  }

  before(async () => {
    emu = await startEmulator({ clock: 'manual', preset: 'deployed', settings: { staleReadMs: null, staleStatusAfterFollowUpMs: null } });
    api = new ApiCaller(emu, emu.tokens.default);
  });
  after(() => emu.close());
  beforeEach(async () => {
    emu.reset();
    await load();
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const { Validator } = await import('@seriousme/openapi-schema-validator');
    const result = await new Validator().validate(doc);
    assert.deepEqual(result.errors, undefined);
    assert.equal(result.valid, true);
  });

  it('says what the deployed service does: 202 and 409 on POSTs, 201 on test groups, historyLimit at most 500 (100 by default)', () => {
    assert.deepEqual(Object.keys(doc.paths['/agents'].post.responses).filter((s) => /^2/.test(s)), ['202']);
    assert.ok('409' in doc.paths['/agents'].post.responses);
    assert.ok('409' in doc.paths['/agents/{agentId}/messages'].post.responses);
    assert.deepEqual(Object.keys(doc.paths['/test-groups'].post.responses).filter((s) => /^2/.test(s)), ['201']);
    const historyLimit = doc.paths['/agents/{agentId}'].get.parameters?.find((p) => p.name === 'historyLimit');
    assert.deepEqual({ ...(historyLimit?.schema as Json) }, { type: 'integer', minimum: 1, maximum: 500, default: 100 });
    const schemas = doc.components.schemas;
    assert.deepEqual(schemas.AgentMessage.properties.role.enum, ['user', 'assistant', 'thinking', 'tool', 'system', 'error']);
    assert.deepEqual(schemas.AgentMessage.properties.toolParameters.type, ['object', 'null']);
    assert.deepEqual(schemas.AgentMessage.properties.attachments.items, { type: 'object' });
    assert.deepEqual(schemas.Agent.properties.kind.enum, ['agent', 'code_review']);
    assert.deepEqual(schemas.AgentLifecycle.properties.conversationState.enum, ['draft', 'ready', 'running_turn', 'errored', 'archived']);
    assert.deepEqual(schemas.AgentLifecycle.properties.sandboxState.enum, ['none', 'provisioning', 'booting', 'online', 'paused', 'dead']);
    assert.deepEqual((schemas.Error409.allOf as Json[])[1], { type: 'object', properties: { code: { type: 'string', enum: ['concurrency_limit', 'follow_ups_not_supported', 'automation_not_runnable'] } } });
  });

  it('the POST model enum is what a start accepts; the GET enum is wider, with the retired models old runs keep', () => {
    const post = doc.components.schemas.StartAgentRequest.properties.model.enum as string[];
    const get = doc.components.schemas.Agent.properties.model.enum as string[];
    assert.deepEqual(post, [...MODEL_IDS]);
    assert.deepEqual(get, [...READABLE_MODEL_IDS]);
    assert.equal(get.length, 15);
    assert.ok(post.every((m) => get.includes(m)));
    assert.deepEqual(get.filter((m) => !post.includes(m)), RETIRED_MODELS.map((m) => m.id));
  });

  it('real answers validate against it: starts, reads of every kind of run, follow-ups, both 409s, test groups', async () => {
    await admin(emu, 'PATCH', '/workspaces/ws_acme', { concurrentAgentLimit: 3 });
    const body = (prompt: string): Json => ({ appId: SEED.apps.todo, prompt: `ENG-7 ${prompt}`, model: 'hosted/auto', permission: 'allow_edits' });
    const started = await api.start(body('[[tools]]'));
    check('/agents', 'POST', started);
    const id = String(obj(started).agentId);
    check('/agents/{agentId}', 'GET', await api.get(id));
    check('/agents/{agentId}/messages', 'POST', await api.followUp(id, { prompt: 'then fail [[fail]]' }));
    const failed = await api.startOk(body('[[fail]]'));
    const review = String(obj(await admin(emu, 'POST', '/code-review-conversations', {})).agentId);
    const full = await api.start(body('one too many'));
    assert.equal(full.status, 409);
    check('/agents', 'POST', full);
    const noFollowUp = await api.followUp(review, { prompt: 'x' });
    assert.equal(noFollowUp.status, 409);
    check('/agents/{agentId}/messages', 'POST', noFollowUp);
    for (const run of [id, failed, review]) {
      for (let i = 0; i < 60 && !['completed', 'error'].includes(String((await api.agent(run)).status)); i++) {
        check('/agents/{agentId}', 'GET', await api.get(run));
        await emu.advance(1000);
      }
      check('/agents/{agentId}', 'GET', await api.get(run));
    }
    check('/agents/{agentId}', 'GET', await api.get(SEED.agents.retiredModel));
    await runToEnd(emu, api, id);
    check('/test-groups', 'POST', await api.createGroup({ appId: SEED.apps.todo, name: 'Deployed' }));
  });

  it('B lists /code-reviews, /code-reviews/{reviewId} and /versions with their schemas (not the undocumented status and sync); wideApiVersion B adds cursor to provider', async () => {
    await testAdmin(emu.adminUrl).setWider('B');
    await load();
    assert.deepEqual(Object.keys(doc.paths).filter((p) => /review|version/.test(p)), ['/code-reviews', '/code-reviews/{reviewId}', '/versions']);
    assert.deepEqual(Object.keys(doc.paths['/code-reviews']), ['post', 'get']);
    assert.deepEqual(Object.keys(doc.paths['/code-reviews'].post.responses), ['202', '400', '401', '402', '403', '409', '413', '415', 'default']);
    const schemas = doc.components.schemas;
    assert.deepEqual(schemas.StartCodeReviewRequest.required, ['appId', 'fromVersion', 'toVersion']);
    assert.deepEqual((schemas.CodeReviewDetail.properties.agent).$ref, '#/components/schemas/Agent');
    assert.equal((schemas.CodeReview.required as string[]).length, 24, 'every field of §2\'s list item');
    assert.deepEqual(schemas.CodeReview.properties.provider.enum, ['claude', 'openai', 'gemini', 'opencode']);
    assert.deepEqual(schemas.Version.properties.stage.enum, ['pending', 'stored', 'indexing', 'completed', 'failed']);
    await admin(emu, 'PATCH', '/settings', { wideApiVersion: 'B' });
    const b = await servedDocument(emu);
    assert.deepEqual(b.components.schemas.CodeReview.properties.provider.enum, ['claude', 'openai', 'gemini', 'opencode', 'cursor']);
    const { Validator } = await import('@seriousme/openapi-schema-validator');
    assert.equal((await new Validator().validate(b)).valid, true);
    await admin(emu, 'PATCH', '/settings', { wideApiVersion: 'A' });
  });

  it('C (the default) lists /versions/status and /versions/sync too; review items without id or conversation fields, C\'s nulls, `version` required, C\'s version item', async () => {
    assert.deepEqual(Object.keys(doc.paths).filter((p) => /review|version/.test(p)), ['/code-reviews', '/code-reviews/{reviewId}', '/versions', '/versions/status', '/versions/sync']);
    assert.deepEqual(Object.keys(doc.paths['/versions/sync'].post.responses).filter((s) => /^2/.test(s)), ['200', '202']);
    const version = doc.paths['/versions'].get.parameters?.find((p) => p.name === 'version');
    assert.equal(version?.required, true);
    const schemas = doc.components.schemas;
    const review = schemas.CodeReview;
    assert.equal('id' in review.properties, false);
    assert.equal('conversationStatus' in review.properties, false);
    for (const field of ['title', 'description', 'fromVersionLabel', 'toVersionLabel', 'requestedByName', 'requestedByEmail', 'requestedByImage', 'linearIssueId', 'linearIssueIdentifier']) {
      assert.deepEqual(review.properties[field].type, ['string', 'null'], field);
    }
    assert.deepEqual(Object.keys(review.properties).slice(0, 2), ['sequence', 'mergeId']);
    assert.equal(schemas.Version.properties.lastChange.type, 'integer');
    assert.equal('errorMessage' in schemas.Version.properties, false);
    assert.deepEqual(schemas.VersionSyncStatus.required, ['ok', 'status', 'stage', 'versionId', 'version', 'appVersion', 'message']);
    await admin(emu, 'PATCH', '/settings', { wideApiVersion: 'B' });
    await load();
    assert.deepEqual(doc.components.schemas.CodeReview.properties.provider.enum, ['claude', 'openai', 'gemini', 'opencode'], 'C has no cursor');
    const { Validator } = await import('@seriousme/openapi-schema-validator');
    assert.equal((await new Validator().validate(doc)).valid, true);
  });

  for (const wider of ['B', 'C'] as const) {
    it(`${wider}: real answers of the code review and version endpoints validate against it, as the review progresses and when refused`, async () => {
      await testAdmin(emu.adminUrl).setWider(wider);
      await load();
      await answersValidate(wider);
    });
  }

  async function answersValidate(wider: 'B' | 'C'): Promise<void> {
    const body = (overrides: Json = {}): Json => ({ appId: SEED.apps.todo, fromVersion: 'ver_todo_004', toVersion: 'ver_todo_010', title: 'TODO-9 check', focusAreas: 'errors', ...overrides });
    await admin(emu, 'PATCH', '/workspaces/ws_acme', { concurrentAgentLimit: 2 });
    const started = await api.request('POST', '/code-reviews', { body: body() });
    check('/code-reviews', 'POST', started);
    const failing = await api.request('POST', '/code-reviews', { body: body({ title: 'x [[fail]]' }) });
    check('/code-reviews', 'POST', failing);
    for (const refused of [body({ toVersion: 'ver_nope' }), body({ userEmail: SEED.emails.stranger }), body()]) {
      const result = await api.request('POST', '/code-reviews', { body: refused });
      assert.ok([400, 403, 409].includes(result.status));
      check('/code-reviews', 'POST', result);
    }
    check('/code-reviews', 'POST', await new ApiCaller(emu, null).request('POST', '/code-reviews', { body: body() }));
    for (const created of [started, failing]) {
      const id = String(obj(created).reviewId);
      for (let i = 0; i < 15; i++) {
        check('/code-reviews/{reviewId}', 'GET', await api.request('GET', `/code-reviews/${id}?historyLimit=3`));
        check('/code-reviews', 'GET', await api.request('GET', `/code-reviews?appId=${SEED.apps.todo}&limit=5`));
        await emu.advance(1000);
      }
    }
    check('/code-reviews/{reviewId}', 'GET', await api.request('GET', '/code-reviews/rev_nope'));
    check('/code-reviews/{reviewId}', 'GET', await api.request('GET', '/code-reviews/rev_seed_merged'));
    check('/code-reviews', 'GET', await api.request('GET', '/code-reviews'));
    const branch = wider === 'C' ? '&version=main' : '';
    check('/versions', 'GET', await api.request('GET', `/versions?appId=${SEED.apps.todo}&limit=12${branch}`));
    check('/versions', 'GET', await api.request('GET', `/versions?appId=${SEED.apps.todo}&limit=1000${branch}`));
    if (wider === 'C') {
      check('/versions', 'GET', await api.request('GET', `/versions?appId=${SEED.apps.todo}`));
      check('/code-reviews', 'POST', await api.request('POST', '/code-reviews', { body: body({ fromVersion: 'main', toVersion: 'feature/dark-mode' }) }));
      check('/code-reviews', 'POST', await api.request('POST', '/code-reviews', { body: body({ fromVersion: 'Main', toVersion: 'Request timeouts' }) }));
      const sync = (version: string): Promise<CallResult> => api.request('POST', '/versions/sync', { body: { appId: SEED.apps.todo, version } });
      const started = await sync('feature/dark-mode');
      check('/versions/sync', 'POST', started);
      check('/versions/sync', 'POST', await sync('feature/nope'));
      check('/versions/sync', 'POST', await api.request('POST', '/versions/sync', { body: { appId: SEED.apps.todo } }));
      for (let i = 0; i < 4; i++) {
        check('/versions/status', 'GET', await api.request('GET', `/versions/status?appId=${SEED.apps.todo}&versionId=${String(obj(started).versionId)}`));
        await emu.advance(1000);
      }
      check('/versions/status', 'GET', await api.request('GET', `/versions/status?appId=${SEED.apps.todo}&versionId=ver_todo_005`));
      check('/versions/status', 'GET', await api.request('GET', `/versions/status?appId=${SEED.apps.todo}`));
    }
  }
});

describe('emulator: the reference profile\'s OpenAPI document is unchanged', () => {
  it('201 on a start, no 409, string tool parameters and attachments, no retired models, the documented codes only', async () => {
    const emu = await startEmulator({ clock: 'manual' });
    try {
      const doc = await servedDocument(emu);
      assert.deepEqual(Object.keys(doc.paths['/agents'].post.responses), ['201', '400', '401', '402', '403', '404', '413', '415', 'default']);
      assert.equal('409' in doc.paths['/agents/{agentId}/messages'].post.responses, false);
      const schemas = doc.components.schemas;
      assert.equal(schemas.AgentMessage.properties.toolParameters.type, 'string');
      assert.deepEqual(schemas.AgentMessage.properties.attachments, { type: 'array', items: { type: 'string' } });
      assert.equal('enum' in schemas.Agent.properties.model, false);
      assert.equal('Error409' in schemas, false);
      assert.doesNotMatch(String(schemas.Error.properties.code.description), /concurrency_limit|follow_ups_not_supported/);
      assert.equal(schemas.StartAgentRequest.properties.reasoningEffort.default, 'medium');
    } finally {
      await emu.close();
    }
  });
});
