/**
 * Which message `sequence` numbers a read can vouch for: one confused number (2^53−1 among 1…29)
 * would size every later window to two messages, so its message is shown but its number not believed.
 */

/**
 * How many steps past the middle of a read a sequence may lie and still be believed, besides
 * the read's own length: far more than any run writes between two reads.
 */
export const SEQUENCE_SLACK = 10_000;

/**
 * The highest sequence a read vouches for: within the read's length plus SEQUENCE_SLACK typical
 * steps of its lower median (and of `known`, the highest believed before). A lone outlier moves
 * neither the median nor the step, so it stays above the ceiling.
 */
export function sequenceCeiling(sequences: readonly number[], known?: number): number {
  const n = sequences.length;
  if (n === 0) {
    return known === undefined ? Number.POSITIVE_INFINITY : known + SEQUENCE_SLACK;
  }
  const sorted = Float64Array.from(sequences).sort();
  const middle = sorted[(n - 1) >> 1];
  let step = 1;
  if (n >= 3) {
    const steps: number[] = [];
    for (let i = 1; i < n; i++) {
      const d = sorted[i] - sorted[i - 1];
      if (d > 0) steps.push(d);
    }
    if (steps.length >= 2) {
      steps.sort((a, b) => a - b);
      step = Math.max(1, steps[(steps.length - 1) >> 1]);
    }
  }
  const base = known === undefined ? middle : n >= 3 ? Math.max(known, middle) : known;
  return base + (n + SEQUENCE_SLACK) * step;
}

/** The safe-integer sequences among `messages`. */
export function safeSequences(messages: Iterable<{ readonly sequence?: number }> | undefined): number[] {
  const out: number[] = [];
  for (const m of messages ?? []) {
    const s = m.sequence;
    if (s !== undefined && Number.isSafeInteger(s)) out.push(s);
  }
  return out;
}

/**
 * The highest believable safe-integer `sequence` among `messages` (see sequenceCeiling), or
 * `known` when none is higher. A sequence beyond a safe integer (1e300) or past the ceiling is
 * not one to count from.
 */
export function maxSequence(messages: Iterable<{ readonly sequence?: number }> | undefined, known?: number): number | undefined {
  const sequences = safeSequences(messages);
  const ceiling = sequenceCeiling(sequences, known);
  let max = known;
  for (const s of sequences) {
    if (s <= ceiling && (max === undefined || s > max)) {
      max = s;
    }
  }
  return max;
}
