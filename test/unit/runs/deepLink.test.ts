import * as assert from 'node:assert/strict';
import { extractAgentId, isPlausibleAgentId } from '../../../src/runs/common/agentId';
import { buildRunLink, parseRunLink } from '../../../src/runs/common/deepLink';
import { plainL10n } from '../../../src/base/common/l10n';
import { tokenShapeProblem } from '../../../src/connection/common/tokenShape';

const BASE = 'https://agents.example.com/api/public/v1';

describe('Run deep links', () => {
  it('round-trips an agent ID and base URL, without any token', () => {
    const link = buildRunLink('vscode', 'Agent-Runs-Team.agent-runs', 'agt_123', BASE);
    assert.equal(link, `vscode://agent-runs-team.agent-runs/run?id=agt_123&base=${encodeURIComponent(BASE)}`);
    const url = new URL(link);
    const parsed = parseRunLink(url.pathname, url.search);
    assert.deepEqual(parsed, { ok: true, link: { agentId: 'agt_123', baseUrl: BASE } });
  });

  it('accepts a link without base and a trailing slash in the path', () => {
    assert.deepEqual(parseRunLink('/run/', '?id=abc-1'), { ok: true, link: { agentId: 'abc-1' } });
  });

  it('rejects other paths and bad or missing IDs', () => {
    assert.deepEqual(parseRunLink('/other', '?id=abc'), { ok: false, problem: 'path' });
    assert.deepEqual(parseRunLink('/run', ''), { ok: false, problem: 'id' });
    assert.deepEqual(parseRunLink('/run', '?id=a%20b'), { ok: false, problem: 'id' });
    assert.deepEqual(parseRunLink('/run', '?id=..%2Fagents'), { ok: false, problem: 'id' });
  });
});

describe('Agent IDs and tokens', () => {
  it('accepts opaque IDs and refuses what certainly is not one', () => {
    for (const ok of ['agt_7f3a', 'a1b2c3', 'run:2025-01-01.x']) {
      assert.ok(isPlausibleAgentId(ok), ok);
    }
    for (const bad of ['', 'ab', 'a b', 'a/b', '../x', '-abc', 'x'.repeat(201)]) {
      assert.ok(!isPlausibleAgentId(bad), bad);
    }
  });

  it('extracts an ID from what people paste', () => {
    assert.equal(extractAgentId('  agt_42  '), 'agt_42');
    assert.equal(extractAgentId('https://agents.example.com/api/public/v1/agents/agt_42'), 'agt_42');
    assert.equal(extractAgentId('vscode://agent-runs-team.agent-runs/run?id=agt_42&base=x'), 'agt_42');
    assert.equal(extractAgentId('not an id'), undefined);
  });

  it('token shape check is loose but rejects whitespace', () => {
    assert.equal(tokenShapeProblem('agr_vgVM0TmuaGrhZz5JnDQtFEvfOSwjDfmvxfjCUqIM', plainL10n), undefined);
    assert.equal(tokenShapeProblem('agr_abc def123', plainL10n), 'The token must not contain spaces or line breaks.');
    assert.ok(tokenShapeProblem('noprefix', plainL10n));
    assert.ok(tokenShapeProblem('', plainL10n));
  });
});
