/**
 * The bench's verdict on a time measured in the page (bench/verdict.ts, bench/report.ts): the
 * absolute budget first; when it is missed, the ratio to the baseline measured alongside.
 */
import * as assert from 'node:assert/strict';
import { markdownTable, Report } from '../../../bench/report';
import { ratioTo, verdict, type Baseline, type Budget } from '../../../bench/verdict';

const under100: Budget = { op: '<', limit: 100 };
const base = (value: number, maxRatio = 2): Baseline => ({ label: '500 messages', value, maxRatio });

describe('bench verdict: absolute budget, or else the ratio to the baseline', () => {
  it('passes on the absolute budget whatever the ratio', () => {
    assert.deepEqual(verdict(60, under100, base(20)), { status: 'PASS', ratio: 3, by: 'absolute' });
  });

  it('a missed absolute budget is judged by the ratio: a busy machine that stretched both alike passes', () => {
    assert.deepEqual(verdict(230, under100, base(200)), { status: 'PASS', ratio: 1.15, by: 'ratio' });
    assert.deepEqual(verdict(200, under100, base(100)), { status: 'PASS', ratio: 2, by: 'ratio' }, 'the ratio budget is inclusive');
  });

  it('fails when the figure grew beyond the ratio budget too', () => {
    assert.deepEqual(verdict(230, under100, base(100)), { status: 'FAIL', ratio: 2.3, by: 'ratio' });
  });

  it('without a baseline, or one that cannot divide, only the absolute budget counts', () => {
    assert.deepEqual(verdict(230, under100), { status: 'FAIL', by: 'absolute' });
    assert.deepEqual(verdict(230, under100, base(0)), { status: 'FAIL', by: 'absolute' });
    assert.deepEqual(verdict(230, under100, base(Number.NaN)), { status: 'FAIL', by: 'absolute' });
    assert.equal(ratioTo(5, -1), undefined);
    assert.equal(ratioTo(Number.POSITIVE_INFINITY, 1), undefined);
  });

  it('the report keeps the ratio and says which budget decided, in the table too: by absolute, by ratio, or failed on both', () => {
    const report = new Report();
    const byRatio = report.add('webview', { name: 'first paint', value: 230, unit: 'ms', budget: under100, baseline: base(200) });
    const fails = report.add('webview', { name: 'append', value: 5.8, unit: 'ms', budget: { op: '<', limit: 3 }, baseline: base(2, 1.5) });
    const absolute = report.add('webview', { name: 'jump', value: 40, unit: 'ms', budget: { op: '<', limit: 50 }, baseline: base(10, 3) });
    const noBase = report.add('webview', { name: 'paint', value: 120, unit: 'ms', budget: under100, baseline: base(0) });
    const plain = report.add('size', { name: 'vsix', value: 390, unit: 'KB', budget: { op: '<', limit: 400 } });
    assert.equal(byRatio.status, 'PASS');
    assert.equal(byRatio.judgedBy, 'ratio');
    assert.equal(byRatio.ratio, 1.15);
    assert.equal(fails.status, 'FAIL');
    assert.deepEqual([absolute.status, absolute.judgedBy, absolute.ratio], ['PASS', 'absolute', 4], 'a ratio over its budget does not matter once the absolute is met');
    assert.deepEqual([noBase.status, noBase.judgedBy, noBase.ratio], ['FAIL', 'absolute', undefined]);
    assert.equal(plain.judgedBy, undefined);
    assert.equal(report.failed, true);
    const table = markdownTable(report.figures).split('\n');
    assert.equal(table[2], '| Webview | first paint | 230 ms | 200 ms (500 messages); 1.15 × | < 100 ms, or ≤ 2 × baseline | **PASS** by ratio |');
    assert.equal(table[3], '| Webview | append | 5.80 ms | 2 ms (500 messages); 2.9 × | < 3 ms, or ≤ 1.5 × baseline | **FAIL** on both |');
    assert.equal(table[4], '| Webview | jump | 40 ms | 10 ms (500 messages); 4 × | < 50 ms, or ≤ 3 × baseline | **PASS** by absolute |');
    assert.equal(table[5], '| Webview | paint | 120 ms | 0 ms (500 messages) | < 100 ms, or ≤ 2 × baseline | **FAIL** by absolute (no usable baseline) |');
    assert.equal(table[6], '| Size | vsix | 390 KB | — | < 400 KB | **PASS** |');
  });
});
