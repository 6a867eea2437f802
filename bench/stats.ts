/** Small statistics for repeated timings. */

export function median(values: readonly number[]): number {
  if (values.length === 0) {
    return Number.NaN;
  }
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** "min … max (n = N)" for notes. */
export function spread(values: readonly number[], unit: string, digits = 1): string {
  if (values.length === 0) {
    return 'no samples';
  }
  const min = Math.min(...values);
  const max = Math.max(...values);
  return `min ${min.toFixed(digits)} ${unit}, max ${max.toFixed(digits)} ${unit}, n = ${values.length}`;
}

export const KB = 1024;
export const MB = 1024 * 1024;
