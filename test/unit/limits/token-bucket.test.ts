import { describe, expect, it } from 'vitest';
import {
  type BucketRate,
  bucketState,
  refusedState,
  remainingAt,
  take,
} from '../../../core/limits/token-bucket';

const free: BucketRate = { requestsPerMinute: 60, maxBurst: 120 };
const start = Date.parse('2026-11-22T12:00:00.000Z');

/** Sends `count` requests at `atInMs`; answers how many were admitted and the bucket after. */
function burst(rate: BucketRate, tat: number | undefined, atInMs: number, count: number) {
  let admitted = 0;
  let current = tat;
  for (let i = 0; i < count; i++) {
    const outcome = take(rate, current, atInMs);
    if (outcome.admitted) {
      admitted++;
      current = outcome.tatInMs;
    }
  }
  return { admitted, tat: current };
}

describe('take', () => {
  it('admits a full burst at once from a new bucket, and not one more', () => {
    const { admitted } = burst(free, undefined, start, 200);
    expect(admitted).toBe(120);
  });

  it('refills one token per interval after a burst', () => {
    const { tat } = burst(free, undefined, start, 120);
    expect(burst(free, tat, start + 999, 1).admitted).toBe(0);
    expect(burst(free, tat, start + 1000, 2).admitted).toBe(1);
  });

  it('accumulates while idle, but never past the burst', () => {
    const { tat } = burst(free, undefined, start, 120);
    expect(burst(free, tat, start + 30_000, 200).admitted).toBe(30);
    expect(burst(free, tat, start + 10 * 60_000, 200).admitted).toBe(120);
  });

  it('admits requests of partial minutes at the rate', () => {
    const rate: BucketRate = { requestsPerMinute: 600, maxBurst: 1 };
    let tat: number | undefined;
    let admitted = 0;
    for (let ms = 0; ms < 15_000; ms += 10) {
      const outcome = take(rate, tat, start + ms);
      if (outcome.admitted) {
        admitted++;
        tat = outcome.tatInMs;
      }
    }
    expect(admitted).toBe(150);
  });
});

describe('bucket state', () => {
  it('counts the tokens left after a request, and says when the next one comes', () => {
    const { tat } = burst(free, undefined, start, 20);
    expect(remainingAt(free, tat as number, start)).toBe(100);
    expect(bucketState(free, tat as number, start)).toEqual({
      limit: 60,
      remaining: 100,
      resetAt: new Date(start + 1000).toISOString(),
    });
    expect(bucketState(free, tat as number, start + 400).resetAt).toBe(new Date(start + 1000).toISOString());
  });

  it('shows a new or refilled bucket full, its reset now', () => {
    expect(bucketState(free, undefined, start)).toEqual({
      limit: 60,
      remaining: 120,
      resetAt: new Date(start).toISOString(),
    });
    const { tat } = burst(free, undefined, start, 120);
    expect(bucketState(free, tat as number, start + 120_000).remaining).toBe(120);
  });

  it('tells a refused request the whole seconds until its next token', () => {
    const { tat } = burst(free, undefined, start, 120);
    expect(refusedState(free, tat as number, start + 200)).toEqual({
      limit: 60,
      remaining: 0,
      resetAt: new Date(start + 1000).toISOString(),
      retryAfterInSeconds: 1,
    });
    const slow: BucketRate = { requestsPerMinute: 2, maxBurst: 1 };
    const after = burst(slow, undefined, start, 1).tat as number;
    expect(refusedState(slow, after, start).retryAfterInSeconds).toBe(30);
  });
});
