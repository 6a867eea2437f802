import * as assert from 'node:assert/strict';
import { extractSchemaInfo } from '../../../src/api/schemaInfo';
import { plainL10n } from '../../../src/base/common/l10n';
import { codeReviewsServed, reviveServedPaths, servedPathsKey, shouldProbe, type ProbeState } from '../../../src/connection/common/codeReviewsServed';
import { groupByApp } from '../../../src/runs/common/presentation';
import { buildOpenApi } from '../../emulator/openapi';
import { PRESETS } from '../../emulator/settings';

describe('Code reviews gate: the agentRuns.codeReviews decision', () => {
  it('is on only when the paths last read list /code-reviews; off while nothing is known', () => {
    assert.equal(codeReviewsServed(['/agents', '/code-reviews', '/code-reviews/{reviewId}']), true);
    assert.equal(codeReviewsServed(['/agents', '/code-reviews/{reviewId}']), false);
    assert.equal(codeReviewsServed([]), false);
    assert.equal(codeReviewsServed(undefined), false);
  });

  it('revives what was stored: a list of paths is known (even empty), anything else is not', () => {
    assert.deepEqual(reviveServedPaths(['/agents', 7, '/code-reviews']), ['/agents', '/code-reviews']);
    assert.deepEqual(reviveServedPaths([]), []);
    assert.equal(reviveServedPaths(undefined), undefined);
    assert.equal(reviveServedPaths({ paths: ['/code-reviews'] }), undefined);
    assert.notEqual(servedPathsKey('https://a.example/api/public/v1'), servedPathsKey('https://b.example/api/public/v1'));
  });

  it('reads the schema only for the key when the view shows, a token is set, nothing is known and it was not asked yet', () => {
    const ready: ProbeState = { visible: true, signedIn: true, baseUrl: 'https://a.example/api/public/v1', known: false, probed: false };
    assert.equal(shouldProbe(ready), true);
    assert.equal(shouldProbe({ ...ready, visible: false }), false);
    assert.equal(shouldProbe({ ...ready, signedIn: false }), false);
    assert.equal(shouldProbe({ ...ready, baseUrl: undefined }), false);
    assert.equal(shouldProbe({ ...ready, known: true }), false);
    assert.equal(shouldProbe({ ...ready, probed: true }), false);
  });

  it('the emulator\'s reference schema keeps it off; its deployed schema turns it on', () => {
    const base = 'http://127.0.0.1:1/api/public/v1';
    assert.equal(codeReviewsServed(extractSchemaInfo(buildOpenApi(base, { ...PRESETS.reference })).paths), false);
    assert.equal(codeReviewsServed(extractSchemaInfo(buildOpenApi(base, { ...PRESETS.deployed })).paths), true);
  });
});

describe('Runs view: the configured app has a row while code reviews are served', () => {
  it('adds the configured app, last and with no run, when none of its runs is listed', () => {
    const run = { agentId: 'a', source: 'tracked' as const, addedAt: 1, createdAt: 1, status: 'completed', appId: 'app_shop', unread: false };
    assert.deepEqual(groupByApp([run], plainL10n, 'app_todo').map((g) => [g.key, g.runs.length]), [['app_shop', 1], ['app_todo', 0]]);
    assert.deepEqual(groupByApp([run], plainL10n, 'app_shop').map((g) => [g.key, g.runs.length]), [['app_shop', 1]]);
    assert.deepEqual(groupByApp([run], plainL10n).map((g) => g.key), ['app_shop']);
    assert.deepEqual(groupByApp([], plainL10n, '').map((g) => g.key), []);
  });
});
