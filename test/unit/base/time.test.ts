import * as assert from 'node:assert/strict';
import { plainL10n } from '../../../src/base/common/l10n';
import { formatAge, formatDuration, nextAgeTick } from '../../../src/base/common/time';

const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);
const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;

describe('Relative time formatting', () => {
  it('formats ages in the largest whole unit', () => {
    assert.equal(formatAge(NOW - 2 * S, NOW, plainL10n), 'now');
    assert.equal(formatAge(NOW - 42 * S, NOW, plainL10n), '42 s');
    assert.equal(formatAge(NOW - 3 * MIN - 59 * S, NOW, plainL10n), '3 min');
    assert.equal(formatAge(NOW - 5 * H, NOW, plainL10n), '5 h');
    assert.equal(formatAge(NOW - 49 * H, NOW, plainL10n), '2 d');
  });

  it('shows a date for old runs and "now" for clock skew into the future', () => {
    assert.equal(formatAge(NOW - 40 * 24 * H, NOW, plainL10n), new Date(NOW - 40 * 24 * H).toLocaleDateString());
    assert.equal(formatAge(NOW + 5 * MIN, NOW, plainL10n), 'now');
  });

  it('formats durations with two units', () => {
    assert.equal(formatDuration(45 * S, plainL10n), '45 s');
    assert.equal(formatDuration(3 * MIN, plainL10n), '3 min');
    assert.equal(formatDuration(3 * MIN + 20 * S, plainL10n), '3 min 20 s');
    assert.equal(formatDuration(2 * H + 5 * MIN, plainL10n), '2 h 5 min');
    assert.equal(formatDuration(-5, plainL10n), '0 s');
  });

  it('schedules the next re-render when the label changes', () => {
    assert.equal(nextAgeTick(NOW - 5 * S, NOW), 10 * S);
    assert.equal(nextAgeTick(NOW - 3 * MIN - 20 * S, NOW), 40 * S);
    assert.equal(nextAgeTick(NOW - 2 * H - 10 * MIN, NOW), 50 * MIN);
  });
});
