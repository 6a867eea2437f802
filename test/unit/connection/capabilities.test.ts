import * as assert from 'node:assert/strict';
import { extractSchemaInfo } from '../../../src/api/schemaInfo';
import {
  CAPABILITIES, contextKeyOf, operationsOf, reviveServedList, servedCapabilities, servedOperationsKey, servedPathsKey,
  shouldProbe, type Capability,
} from '../../../src/connection/common/capabilities';
import { buildOpenApi } from '../../emulator/openapi';
import { PRESETS } from '../../emulator/settings';

/** Every operation of the deployed service's §2–§6 that a capability needs. */
const ALL = [...new Set(CAPABILITIES.flatMap(operationsOf))];

describe('Capabilities: what the served schema lists turns on', () => {
  it('the contract\'s names, keys and operations', () => {
    const table = Object.fromEntries(CAPABILITIES.map((c) => [contextKeyOf(c), operationsOf(c)]));
    assert.deepEqual(table, {
      'agentRuns.codeReviews': ['POST /code-reviews'],
      'agentRuns.serviceTests': ['GET /tests', 'GET /tests/{}', 'POST /test-runs', 'GET /test-runs/{}'],
      'agentRuns.serviceTestGroupRuns': ['POST /test-group-runs', 'GET /test-group-runs/{}'],
      'agentRuns.serviceTestGroups': ['GET /test-groups/{}'],
      'agentRuns.serviceTestGroupList': ['GET /test-groups'],
      'agentRuns.serviceTestGroupEdit': ['PUT /test-groups/{}'],
      'agentRuns.serviceTestGroupDelete': ['DELETE /test-groups/{}'],
      'agentRuns.automations': ['GET /automations'],
      'agentRuns.automationRuns': ['POST /automations/{}/run'],
    });
  });

  it('each is on exactly when all its operations are listed: one missing turns off that one alone', () => {
    assert.deepEqual([...servedCapabilities({ operations: ALL })].sort(), [...CAPABILITIES].sort());
    for (const op of ALL) {
      const without = servedCapabilities({ operations: ALL.filter((o) => o !== op), paths: ['/code-reviews'] });
      const off = CAPABILITIES.filter((c) => !without.has(c));
      assert.deepEqual(off, CAPABILITIES.filter((c) => operationsOf(c).includes(op)), `without ${op}`);
    }
  });

  it('version A (no group list, no PUT/DELETE of groups): tests, group runs, groups read by ID and automations; not the list, not the edits', () => {
    const a = ALL.filter((o) => !['GET /test-groups', 'PUT /test-groups/{}', 'DELETE /test-groups/{}'].includes(o));
    const on = servedCapabilities({ operations: a });
    assert.deepEqual(CAPABILITIES.filter((c) => !on.has(c)), ['serviceTestGroupList', 'serviceTestGroupEdit', 'serviceTestGroupDelete']);
  });

  it('a path listed with another method is not the operation', () => {
    const on = servedCapabilities({ operations: ['GET /code-reviews', 'POST /tests', 'GET /tests/{}', 'POST /test-runs', 'GET /test-runs/{}', 'GET /automations/{}/run'] });
    assert.deepEqual([...on], []);
  });

  it('stored before operations were kept: code reviews from the paths as before, the rest off; nothing stored: all off', () => {
    assert.deepEqual([...servedCapabilities({ paths: ['/agents', '/code-reviews', '/tests', '/automations'] })], ['codeReviews']);
    assert.deepEqual([...servedCapabilities({ paths: ['/agents'] })], []);
    assert.deepEqual([...servedCapabilities(undefined)], []);
    assert.deepEqual([...servedCapabilities({ paths: ['/code-reviews'], operations: [] })], [], 'operations known win over paths');
  });

  it('what is stored: lists only, per base URL; the schema is read for them only while operations are unknown', () => {
    assert.deepEqual(reviveServedList(['GET /tests', 3]), ['GET /tests']);
    assert.equal(reviveServedList('GET /tests'), undefined);
    const base = 'https://a.example/api/public/v1';
    assert.notEqual(servedOperationsKey(base), servedPathsKey(base));
    assert.notEqual(servedOperationsKey(base), servedOperationsKey('https://b.example/api/public/v1'));
    const state = { visible: true, signedIn: true, baseUrl: base, known: false, probed: false };
    assert.equal(shouldProbe(state), true);
    assert.equal(shouldProbe({ ...state, known: true }), false);
  });

  it('the emulator\'s reference schema turns nothing on; its deployed schema at least code reviews, through its operations', () => {
    const base = 'http://127.0.0.1:1/api/public/v1';
    const reference = extractSchemaInfo(buildOpenApi(base, { ...PRESETS.reference }));
    assert.deepEqual([...servedCapabilities(reference)], []);
    const deployed = extractSchemaInfo(buildOpenApi(base, { ...PRESETS.deployed }));
    assert.ok(deployed.operations?.includes('POST /code-reviews'));
    assert.equal(servedCapabilities(deployed).has('codeReviews' satisfies Capability), true);
  });
});
