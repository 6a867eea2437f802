import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  ApiError, canonicalJson, extractModelIds, extractPaths, extractSchemaInfo, parseServiceSchemaInfo, schemaFingerprint, servesPath,
} from '../../../src/api';

const TEN = Array.from({ length: 10 }, (_, i) => `model-${i + 1}`);

/** A document in the shape the service serves: everything behind $refs. */
function refDoc(modelSchema: unknown): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: { title: 'Service', version: '1.4.2' },
    paths: {
      '/agents': { post: { requestBody: { $ref: '#/components/requestBodies/StartAgent' } } },
      '/agents/{agentId}': { get: {} },
    },
    components: {
      requestBodies: {
        StartAgent: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/StartAgentRequest' } } } },
      },
      schemas: {
        StartAgentRequest: {
          allOf: [
            { $ref: '#/components/schemas/Base' },
            { type: 'object', required: ['model'], properties: { model: { $ref: '#/components/schemas/Model' } } },
          ],
        },
        Base: { type: 'object', properties: { appId: { type: 'string' }, prompt: { type: 'string' } } },
        Model: modelSchema,
      },
    },
  };
}

describe('api: extractModelIds', () => {
  it('follows $refs through requestBodies, allOf and schemas to an enum', () => {
    assert.deepEqual(extractModelIds(refDoc({ type: 'string', enum: TEN })), TEN);
  });

  it('reads oneOf/anyOf of consts, nested, deduplicated, in order', () => {
    const schema = { oneOf: [{ const: 'm1', description: 'x' }, { anyOf: [{ const: 'm2' }, { $ref: '#/components/schemas/M3' }] }, { const: 'm1' }, { type: 'null' }] };
    const doc = refDoc(schema);
    (doc.components as { schemas: Record<string, unknown> }).schemas.M3 = { enum: ['m3', null] };
    assert.deepEqual(extractModelIds(doc), ['m1', 'm2', 'm3']);
  });

  it('reads an inline schema and a JSON-pointer-escaped ref', () => {
    const doc = {
      paths: { '/agents': { post: { requestBody: { content: { 'application/json; charset=utf-8': { schema: { $ref: '#/components/schemas/a~1b' } } } } } } },
      components: { schemas: { 'a/b': { properties: { model: { type: 'string', enum: ['x', 'y'] } } } } },
    };
    assert.deepEqual(extractModelIds(doc), ['x', 'y']);
  });

  it('returns no models rather than failing on missing parts, dangling or cyclic refs', () => {
    assert.deepEqual(extractModelIds({}), []);
    assert.deepEqual(extractModelIds({ paths: { '/agents': { get: {} } } }), []);
    assert.deepEqual(extractModelIds(refDoc({ $ref: '#/components/schemas/Nope' })), []);
    assert.deepEqual(extractModelIds(refDoc({ $ref: '#/components/schemas/Model' })), []);
    assert.deepEqual(extractModelIds(refDoc({ type: 'string' })), []);
    assert.deepEqual(extractModelIds('nope'), []);
  });
});

describe('api: extractSchemaInfo', () => {
  it('returns the models, info.version and a sha256 fingerprint of the canonical JSON', () => {
    const doc = refDoc({ enum: TEN });
    const info = extractSchemaInfo(doc);
    assert.deepEqual(info.models, TEN);
    assert.equal(info.version, '1.4.2');
    assert.equal(info.fingerprint, `sha256:${createHash('sha256').update(canonicalJson(doc)).digest('hex')}`);
    assert.match(info.fingerprint, /^sha256:[0-9a-f]{64}$/);
  });

  it('fingerprint ignores key order and whitespace but not content', () => {
    const a = { b: 1, a: [1, { y: 2, x: 'z' }] };
    const b = JSON.parse('{ "a": [1, {"x":"z","y":2}],\n "b": 1 }') as unknown;
    assert.equal(schemaFingerprint(a), schemaFingerprint(b));
    assert.notEqual(schemaFingerprint(a), schemaFingerprint({ ...a, b: 2 }));
    assert.notEqual(schemaFingerprint({ a: [1, 2] }), schemaFingerprint({ a: [2, 1] }));
  });

  it('omits a missing version and refuses a non-object document', () => {
    assert.ok(!('version' in extractSchemaInfo({ openapi: '3.0.0' })));
    assert.throws(() => extractSchemaInfo([1]), (e: unknown) => e instanceof ApiError && e.kind === 'invalid_response');
  });
});

describe('api: the paths of the served schema', () => {
  it('lists the document\'s paths relative to the base URL, sorted, behind a $ref too', () => {
    assert.deepEqual(extractSchemaInfo(refDoc({ enum: TEN })).paths, ['/agents', '/agents/{agentId}']);
    const doc = {
      paths: { $ref: '#/x-paths' },
      'x-paths': { '/versions': {}, '/code-reviews/': {}, 'x-extension': {}, '/': {}, '/v2/api/public/v1/code-reviews/{reviewId}': {} },
    };
    assert.deepEqual(extractPaths(doc), ['/', '/code-reviews', '/code-reviews/{reviewId}', '/versions']);
    assert.deepEqual(extractPaths({ openapi: '3.0.0' }), []);
    assert.deepEqual(extractPaths('nope'), []);
    assert.deepEqual(extractSchemaInfo({ openapi: '3.0.0', paths: [] }).paths, []);
  });

  it('stored schema info keeps the paths; stored before them it is still read, and serves nothing beyond the reference', () => {
    const stored = { models: ['a'], fingerprint: 'sha256:x', paths: ['/agents', '/code-reviews', 7] };
    const info = parseServiceSchemaInfo(stored);
    assert.deepEqual(info.paths, ['/agents', '/code-reviews']);
    assert.equal(servesPath(info, '/code-reviews'), true);
    const old = parseServiceSchemaInfo({ models: ['a'], version: '1.0', fingerprint: 'sha256:x' });
    assert.deepEqual(old, { models: ['a'], version: '1.0', fingerprint: 'sha256:x' });
    assert.equal(servesPath(old, '/code-reviews'), false);
    assert.equal(servesPath(parseServiceSchemaInfo({ models: [], fingerprint: 'f', paths: '/code-reviews' }), '/code-reviews'), false);
    assert.equal(servesPath(undefined, '/agents'), false);
  });
});
