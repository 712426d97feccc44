import { describe, expect, it } from 'vitest';
import {
  addHistograms,
  binCount,
  binMiddleInMs,
  binOf,
  type DurationHistogram,
  estimatePercentileInMs,
} from '../../../core/metrics/histogram';

/** The nearest-rank percentile of exact values, as the estimate approximates it. */
function exactPercentile(values: number[], quantile: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(quantile * sorted.length)) - 1] as number;
}

function histogramOf(values: number[]): DurationHistogram {
  const histogram: DurationHistogram = {};
  for (const value of values) histogram[binOf(value)] = (histogram[binOf(value)] ?? 0) + 1;
  return histogram;
}

describe('duration bins', () => {
  it('put runs under 1 ms in bin 0, four bins per doubling above, and anything past a year in the last', () => {
    // Act
    const bins = [0, 0.4, 1, 2, 4, 1000, 400 * 86_400_000].map(binOf);

    // Assess
    expect(bins).toEqual([0, 0, 1, 5, 9, 40, binCount - 1]);
  });

  it('hold each duration between the bounds whose geometric middle stands for the bin', () => {
    // Prepare
    const durations = [1, 3, 17, 250, 999, 12_345, 3_600_000];

    // Act
    const middles = durations.map((duration) => binMiddleInMs(binOf(duration)));

    // Assess
    durations.forEach((duration, index) => {
      expect(Math.abs((middles[index] as number) / duration - 1)).toBeLessThanOrEqual(
        2 ** (1 / 8) - 1 + 1e-9,
      );
    });
  });
});

describe('percentile estimates', () => {
  it('are null when no run was counted', () => {
    // Act
    const estimate = estimatePercentileInMs({}, 0.5);

    // Assess
    expect(estimate).toBeNull();
  });

  it('stay within 9 % (and a rounding ms) of the exact p50 and p95 of 1,000 spread durations', () => {
    // Prepare: a deterministic spread from 5 ms to about 40 s
    const durations = Array.from({ length: 1000 }, (_, index) =>
      Math.round(5 * 1.009 ** index + (index % 7)),
    );
    const histogram = histogramOf(durations);

    // Act
    const p50 = estimatePercentileInMs(histogram, 0.5) as number;
    const p95 = estimatePercentileInMs(histogram, 0.95) as number;

    // Assess
    for (const [estimate, quantile] of [
      [p50, 0.5],
      [p95, 0.95],
    ] as const) {
      const exact = exactPercentile(durations, quantile);
      expect(Math.abs(estimate - exact)).toBeLessThanOrEqual(exact * (2 ** (1 / 8) - 1) + 0.5);
    }
  });

  it('read histograms added bin by bin as one: two hours of 10 runs give the p95 of the 20', () => {
    // Prepare
    const fast = histogramOf(Array.from({ length: 10 }, () => 100));
    const slow = histogramOf(Array.from({ length: 10 }, () => 8_000));

    // Act
    const sum = addHistograms([fast, slow]);

    // Assess
    expect(estimatePercentileInMs(sum, 0.5)).toBe(Math.round(binMiddleInMs(binOf(100))));
    expect(estimatePercentileInMs(sum, 0.95)).toBe(Math.round(binMiddleInMs(binOf(8_000))));
    expect(Object.values(sum).reduce((total, count) => total + count, 0)).toBe(20);
  });
});
