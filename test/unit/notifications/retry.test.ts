import { describe, expect, it } from 'vitest';
import {
  isRetryable,
  maxDeliveryAttempts,
  maxJitterFraction,
  retryDelayInMs,
  retryDelaysInMs,
} from '../../../core/notifications/retry';

describe('retry schedule', () => {
  it('waits 5 s, 15 s, 1 min, 3 min after attempts 1 to 4, with no jitter at random 0', () => {
    // Act
    const delays = [1, 2, 3, 4].map((attempt) => retryDelayInMs(attempt, () => 0));

    // Assess
    expect(delays).toEqual([5_000, 15_000, 60_000, 180_000]);
    expect(maxDeliveryAttempts).toBe(5);
    expect(retryDelaysInMs[4]).toBe(600_000);
  });

  it('adds at most 10 % jitter', () => {
    // Act
    const highest = [1, 2, 3, 4].map((attempt) => retryDelayInMs(attempt, () => 0.999_999));

    // Assess
    expect(maxJitterFraction).toBe(0.1);
    highest.forEach((delay, index) => {
      const base = retryDelaysInMs[index] as number;
      expect(delay).toBeGreaterThan(base);
      expect(delay).toBeLessThanOrEqual(base * 1.1);
    });
  });

  it.each([
    [{ kind: 'answered', status: 500 } as const, true],
    [{ kind: 'answered', status: 503 } as const, true],
    [{ kind: 'answered', status: 429 } as const, true],
    [{ kind: 'timed-out' } as const, true],
    [{ kind: 'connection-failed' } as const, true],
    [{ kind: 'answered', status: 400 } as const, false],
    [{ kind: 'answered', status: 404 } as const, false],
    [{ kind: 'answered', status: 301 } as const, false],
    [{ kind: 'answered', status: 302 } as const, false],
    [{ kind: 'refused' } as const, false],
  ])('retries %o: %s', (outcome, retried) => {
    expect(isRetryable(outcome)).toBe(retried);
  });
});
