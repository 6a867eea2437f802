import * as assert from 'node:assert/strict';
import {
  isAuthoritative, knownModelsForValidation, normalizeFallback, providerHint, pushRecent, resolveCatalog,
  reviveCachedSchema, schemaCacheKey, type CachedSchemaInfo,
} from '../../../src/run/common/models';

const TEN = ['hosted/auto', 'hosted/fast', 'hosted/balanced', 'hosted/pro', 'hosted/max', 'openai/gpt-5', 'openai/gpt-5-mini', 'anthropic/claude-sonnet-4-5', 'anthropic/claude-opus-4-1', 'google/gemini-2.5-pro'];

describe('launch model list', () => {
  it('uses the live list and caches it with its fingerprint', () => {
    const r = resolveCatalog({ live: { models: TEN, fingerprint: 'sha256:a', version: '1.0' }, fallback: ['x'], now: 5 });
    assert.equal(r.catalog.source, 'live');
    assert.deepEqual(r.catalog.models, TEN);
    assert.equal(r.catalog.schemaChange, undefined, 'no warning the first time');
    assert.deepEqual(r.cacheUpdate, { models: TEN, fingerprint: 'sha256:a', version: '1.0', fetchedAt: 5 });
    assert.deepEqual(knownModelsForValidation(r.catalog), TEN);
  });

  it('does not rewrite the cache when nothing changed', () => {
    const cached: CachedSchemaInfo = { models: TEN, fingerprint: 'sha256:a', fetchedAt: 1 };
    const r = resolveCatalog({ live: { models: TEN, fingerprint: 'sha256:a' }, cached, fallback: [], now: 5 });
    assert.equal(r.cacheUpdate, undefined);
    assert.equal(r.catalog.schemaChange, undefined);
  });

  it('reports a schema change once, with the models added and removed', () => {
    const cached: CachedSchemaInfo = { models: TEN, fingerprint: 'sha256:a', version: '1.0', fetchedAt: 1 };
    const next = [...TEN.slice(1), 'hosted/ultra'];
    const r1 = resolveCatalog({ live: { models: next, fingerprint: 'sha256:b', version: '1.1' }, cached, fallback: [], now: 5 });
    assert.deepEqual(r1.catalog.schemaChange, { previousVersion: '1.0', version: '1.1', added: ['hosted/ultra'], removed: ['hosted/auto'] });
    assert.ok(r1.cacheUpdate);
    // The next flow reads the updated cache: no second warning.
    const r2 = resolveCatalog({ live: { models: next, fingerprint: 'sha256:b', version: '1.1' }, cached: r1.cacheUpdate, fallback: [], now: 6 });
    assert.equal(r2.catalog.schemaChange, undefined);
  });

  it('falls back to the cache, then the settings list, then nothing', () => {
    const cached: CachedSchemaInfo = { models: TEN, fingerprint: 'sha256:a', fetchedAt: 1 };
    const a = resolveCatalog({ error: 'Could not reach the service.', cached, fallback: ['f/1'], now: 5 });
    assert.equal(a.catalog.source, 'cache');
    assert.equal(a.catalog.problem, 'Could not reach the service.');
    assert.equal(a.catalog.fetchedAt, 1);
    assert.equal(a.cacheUpdate, undefined);
    assert.ok(isAuthoritative(a.catalog));
    const b = resolveCatalog({ error: 'down', fallback: [' f/1 ', 'f/1', '', 'has space', 7 as unknown as string], now: 5 });
    assert.equal(b.catalog.source, 'fallback');
    assert.deepEqual(b.catalog.models, ['f/1']);
    assert.equal(knownModelsForValidation(b.catalog), undefined, 'a hand-written list does not block the request');
    const c = resolveCatalog({ error: 'down', fallback: [], now: 5 });
    assert.equal(c.catalog.source, 'none');
    assert.deepEqual(c.catalog.models, []);
  });

  it('keeps the last good list when the live schema lists no models', () => {
    const cached: CachedSchemaInfo = { models: TEN, fingerprint: 'sha256:a', fetchedAt: 1 };
    const r = resolveCatalog({ live: { models: [], fingerprint: 'sha256:z' }, cached, fallback: [], now: 5 });
    assert.equal(r.catalog.source, 'cache');
    assert.match(r.catalog.problem ?? '', /lists no models/);
    assert.equal(r.cacheUpdate, undefined);
  });

  it('revives cache entries defensively and keys them per base URL', () => {
    assert.equal(reviveCachedSchema(undefined), undefined);
    assert.equal(reviveCachedSchema({ models: TEN }), undefined);
    assert.deepEqual(reviveCachedSchema({ models: ['a', 1, 'a'], fingerprint: 'f', fetchedAt: 'x' }), { models: ['a'], fingerprint: 'f', fetchedAt: 0 });
    assert.notEqual(schemaCacheKey('https://a/api/public/v1'), schemaCacheKey('https://b/api/public/v1'));
    assert.deepEqual(normalizeFallback('hosted/auto'), []);
  });

  it('keeps most-recent-first lists short', () => {
    assert.deepEqual(pushRecent(['a', 'b', 'c'], 'b', 3), ['b', 'a', 'c']);
    assert.deepEqual(pushRecent(['a', 'b', 'c'], 'd', 3), ['d', 'a', 'b']);
    assert.deepEqual(pushRecent(['a'], '  ', 3), ['a']);
  });

  it('derives a provider hint for messages only', () => {
    assert.equal(providerHint('openai/gpt-5'), 'openai');
    assert.equal(providerHint('hosted-auto'), undefined);
    assert.equal(providerHint('/x'), undefined);
  });
});
