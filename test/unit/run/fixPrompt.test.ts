// The "Ask Agent to Fix" prompt built from a failed test (src/run/common/fixPrompt.ts).
import * as assert from 'node:assert/strict';
import { plainL10n } from '../../../src/base/common/l10n';
import { buildFixPrompt } from '../../../src/run/common/fixPrompt';

describe('the fix prompt', () => {
  it('builds the fix prompt from the failure and keeps it within the bound, cutting the source first', () => {
    const t = { name: 'checkout › adds an item', location: 'tests/checkout.test.js:9', message: 'Expected 3, got 2', expected: '3', actual: '2', stack: ['at add (cart.js:4:1)'], source: 'x'.repeat(50_000) };
    const full = buildFixPrompt({ ...t, source: 'it("adds", () => {})' }, 20_000, plainL10n);
    assert.match(full, /^The test “checkout › adds an item” fails\./);
    for (const part of ['Failure message:\n```\nExpected 3, got 2', 'Expected:\n```\n3', 'Actual:\n```\n2', 'Stack:\n```\nat add', 'Test source:\n```\nit("adds"']) assert.ok(full.includes(part), part);
    const bounded = buildFixPrompt(t, 2000, plainL10n);
    assert.ok(bounded.length <= 2000, `${bounded.length}`);
    assert.match(bounded, /Expected 3, got 2/);
    assert.match(bounded, /x \[cut\]\n```$/);
  });
});
