/**
 * How a figure is judged against its budget, and, for a time measured in the page, against a
 * baseline measured alongside it (the same page with few messages, in the same run): a busy
 * machine stretches both alike, so their ratio still says what the figure is worth when the
 * absolute time does not.
 *
 * The rule: a figure with a baseline passes when it meets its absolute budget, or else when its
 * ratio to the baseline meets the ratio budget. On a machine fast enough the absolute budget
 * decides (it also catches a cost the baseline pays as well, which no ratio can); on a slowed
 * one, the ratio does (what grows with the history still fails).
 */

export type Status = 'PASS' | 'FAIL' | 'INFO' | 'ERROR';

export interface Budget {
  /** The figure passes when `value <op> limit`. */
  readonly op: '<' | '<=' | '==';
  readonly limit: number;
}

/** The same measurement under the same conditions where it costs little, and the ratio budget. */
export interface Baseline {
  /** What was measured for it, e.g. "500 messages". */
  readonly label: string;
  readonly value: number;
  /** The figure also passes when `value / baseline.value <= maxRatio`. */
  readonly maxRatio: number;
  readonly samples?: readonly number[];
}

export interface Verdict {
  readonly status: Status;
  /** value / baseline, when there is a baseline that can divide. */
  readonly ratio?: number;
  /** Which budget gave the verdict: the absolute one, or the ratio after the absolute was missed. */
  readonly by: 'absolute' | 'ratio';
}

export function judge(value: number, budget: Budget): Status {
  switch (budget.op) {
    case '<':
      return value < budget.limit ? 'PASS' : 'FAIL';
    case '<=':
      return value <= budget.limit ? 'PASS' : 'FAIL';
    case '==':
      return value === budget.limit ? 'PASS' : 'FAIL';
  }
}

/** value / baseline, or undefined when the baseline cannot divide (zero, negative, not a number). */
export function ratioTo(value: number, baseline: number): number | undefined {
  return Number.isFinite(value) && Number.isFinite(baseline) && baseline > 0 ? value / baseline : undefined;
}

/** The absolute budget first; when it is missed and there is a usable baseline, the ratio budget. */
export function verdict(value: number, budget: Budget, baseline?: Baseline): Verdict {
  const ratio = baseline ? ratioTo(value, baseline.value) : undefined;
  const absolute = judge(value, budget);
  if (absolute === 'PASS' || !baseline || ratio === undefined) {
    return ratio === undefined ? { status: absolute, by: 'absolute' } : { status: absolute, ratio, by: 'absolute' };
  }
  return { status: ratio <= baseline.maxRatio ? 'PASS' : 'FAIL', ratio, by: 'ratio' };
}
