/**
 * The nearest-rank percentile of samples: the smallest sample that at least `fraction` of all
 * samples are less than or equal to (0.5 is the median, 0.99 the p99). Nearest rank rather than
 * interpolation, so the figure is always a latency that was actually observed.
 *
 * @param samples - measured values, in any order
 * @param fraction - in (0, 1]
 * @returns the percentile, or NaN when there are no samples
 */
export function percentile(samples: readonly number[], fraction: number): number {
  if (!(fraction > 0 && fraction <= 1)) {
    throw new RangeError(`percentile fraction must be in (0, 1], got ${fraction}`);
  }
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.ceil(fraction * sorted.length) - 1] ?? Number.NaN;
}
