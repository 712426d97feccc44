/**
 * Token buckets as the generic cell rate algorithm (GCRA): a bucket is one number, its
 * theoretical arrival time (`tat`, ms). A bucket refilling `requestsPerMinute` tokens a minute up to
 * `maxBurst` admits a request at `now` when `tat - (maxBurst - 1) * interval <= now`, and the
 * request moves `tat` to `max(tat, now) + interval`. Because the state is one number moved by a
 * constant, a store can take a token with one conditional update (no read, no transaction):
 *
 * - busy bucket (`now <= tat <= now + (maxBurst - 1) * interval`): `tat += interval`;
 * - idle bucket (`tat < now`, or no bucket yet): `tat = now + interval`.
 *
 * Everything here is arithmetic on that number, so it is tested under a fake clock.
 */

export interface BucketRate {
  requestsPerMinute: number;
  maxBurst: number;
}

/** Milliseconds between two tokens. */
export function intervalInMs(rate: BucketRate): number {
  return 60_000 / rate.requestsPerMinute;
}

/** The latest `tat` at which a request at `nowInMs` is still admitted (and moves it by one interval). */
export function admitLimitInMs(rate: BucketRate, nowInMs: number): number {
  return nowInMs + (rate.maxBurst - 1) * intervalInMs(rate);
}

/** What a request sees of its bucket: the X-RateLimit-* values, and Retry-After when refused. */
export interface BucketState {
  limit: number;
  remaining: number;
  /** When the bucket is full again (ISO 8601). */
  resetAt: string;
  /** Whole seconds until the next token, when the request was refused. */
  retryAfterInSeconds?: number;
}

/** Tokens left after a request moved the bucket to `tat` (or found it there, refused). */
export function remainingAt(rate: BucketRate, tatInMs: number, nowInMs: number): number {
  const backlog = Math.max(0, tatInMs - nowInMs);
  return Math.max(0, Math.min(rate.maxBurst, Math.floor(rate.maxBurst - backlog / intervalInMs(rate))));
}

export function admittedState(rate: BucketRate, newTatInMs: number, nowInMs: number): BucketState {
  return {
    limit: rate.requestsPerMinute,
    remaining: remainingAt(rate, newTatInMs, nowInMs),
    resetAt: new Date(Math.max(newTatInMs, nowInMs)).toISOString(),
  };
}

export function refusedState(rate: BucketRate, tatInMs: number, nowInMs: number): BucketState {
  const nextTokenAtInMs = tatInMs - (rate.maxBurst - 1) * intervalInMs(rate);
  return {
    limit: rate.requestsPerMinute,
    remaining: 0,
    resetAt: new Date(Math.max(tatInMs, nowInMs)).toISOString(),
    retryAfterInSeconds: Math.max(1, Math.ceil((nextTokenAtInMs - nowInMs) / 1000)),
  };
}

/** The pure step: what one request does to a bucket at `tat` (undefined: none yet). */
export function take(
  rate: BucketRate,
  tatInMs: number | undefined,
  nowInMs: number,
): { admitted: true; tatInMs: number } | { admitted: false } {
  if (tatInMs === undefined || tatInMs < nowInMs)
    return { admitted: true, tatInMs: nowInMs + intervalInMs(rate) };
  if (tatInMs <= admitLimitInMs(rate, nowInMs))
    return { admitted: true, tatInMs: tatInMs + intervalInMs(rate) };
  return { admitted: false };
}
