/**
 * The duration histogram of an hour's runs: fixed log-scale bins, so counters of any hours add up bin
 * by bin, and a percentile is read off the bins. Bin 0 holds runs under 1 ms; bin i ≥ 1 holds
 * [2^((i-1)/4), 2^(i/4)) ms, four bins per doubling. A percentile is estimated as the geometric
 * middle of the bin its rank falls in, which is within a factor 2^(1/8) (about ±9 %) of the true
 * nearest-rank percentile, plus half a millisecond of rounding.
 */

export const binsPerDoubling = 4;

/** 2^35 ms is over a year, longer than any run may last; longer durations share the last bin. */
export const binCount = 35 * binsPerDoubling + 1;

/** Bin counts by bin index (bins with no runs may be left out). */
export type DurationHistogram = Record<number, number>;

export function binOf(durationInMs: number): number {
  if (!(durationInMs >= 1)) return 0;
  return Math.min(binCount - 1, 1 + Math.floor(Math.log2(durationInMs) * binsPerDoubling));
}

/** The estimate a bin stands for: the geometric middle of its bounds (0 for bin 0). */
export function binMiddleInMs(bin: number): number {
  if (bin <= 0) return 0;
  return 2 ** ((bin - 0.5) / binsPerDoubling);
}

/** The bins of `histograms` added up. */
export function addHistograms(histograms: readonly DurationHistogram[]): DurationHistogram {
  const sum: DurationHistogram = {};
  for (const histogram of histograms)
    for (const [bin, count] of Object.entries(histogram)) sum[Number(bin)] = (sum[Number(bin)] ?? 0) + count;
  return sum;
}

/**
 * The estimated `quantile` (0 < quantile ≤ 1) of the durations counted, in whole milliseconds;
 * null when nothing was counted. Nearest rank: the value of the ⌈quantile · n⌉-th smallest run.
 */
export function estimatePercentileInMs(histogram: DurationHistogram, quantile: number): number | null {
  const bins = Object.entries(histogram)
    .map(([bin, count]) => [Number(bin), count] as const)
    .filter(([, count]) => count > 0)
    .sort(([a], [b]) => a - b);
  const total = bins.reduce((sum, [, count]) => sum + count, 0);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(quantile * total));
  let seen = 0;
  for (const [bin, count] of bins) {
    seen += count;
    if (seen >= rank) return Math.round(binMiddleInMs(bin));
  }
  return Math.round(binMiddleInMs(bins[bins.length - 1]?.[0] ?? 0));
}
