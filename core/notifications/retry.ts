/**
 * When a webhook delivery is tried again: up to 5 attempts; after failed attempt k the k-th delay of
 * 5 s, 15 s, 1 min, 3 min (10 min is the fifth, never waited), plus up to 10 % jitter; only after a
 * 5xx, a 429, a time-out or a connection error. Redirects and other answers are final.
 */
export const maxDeliveryAttempts = 5;
export const retryDelaysInMs = [5_000, 15_000, 60_000, 180_000, 600_000] as const;
export const maxJitterFraction = 0.1;
export const deliveryTimeoutInMs = 30_000;

export type AttemptOutcome =
  | { kind: 'answered'; status: number }
  | { kind: 'timed-out' }
  | { kind: 'connection-failed' }
  /** The guard refused the URL: trying again changes nothing. */
  | { kind: 'refused' };

export function isRetryable(outcome: AttemptOutcome): boolean {
  if (outcome.kind === 'refused') return false;
  if (outcome.kind !== 'answered') return true;
  return outcome.status >= 500 || outcome.status === 429;
}

export function isSuccess(outcome: AttemptOutcome): boolean {
  return outcome.kind === 'answered' && outcome.status >= 200 && outcome.status < 300;
}

/** The wait after failed attempt `attempt` (1-based), jitter included; `random` in [0, 1). */
export function retryDelayInMs(attempt: number, random: () => number = Math.random): number {
  const base = retryDelaysInMs[Math.min(attempt, retryDelaysInMs.length) - 1] ?? retryDelaysInMs[0];
  return Math.round(base * (1 + maxJitterFraction * random()));
}
