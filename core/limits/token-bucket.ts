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

/**
 * The latest `tat` at which a request at `nowInMs` is still admitted (and moves it by one interval),
 * or one that takes `count` tokens at once: the last of them within the burst.
 */
export function admitLimitInMs(rate: BucketRate, nowInMs: number, count = 1): number {
  return nowInMs + (rate.maxBurst - count) * intervalInMs(rate);
}

/** What a request sees of its bucket: the X-RateLimit-* values, and Retry-After when refused. */
export interface BucketState {
  /** Requests per minute: the refill rate. */
  limit: number;
  /** Whole tokens available now (up to the burst). */
  remaining: number;
  /** When the next token comes (ISO 8601); now, when the bucket is full. */
  resetAt: string;
  /** Whole seconds until the next token, when the request was refused. */
  retryAfterInSeconds?: number;
}

/** Whole tokens in a bucket at `tat` (a new or idle bucket is full). */
export function remainingAt(rate: BucketRate, tatInMs: number | undefined, nowInMs: number): number {
  const backlog = Math.max(0, (tatInMs ?? nowInMs) - nowInMs);
  return Math.max(0, Math.min(rate.maxBurst, Math.floor(rate.maxBurst - backlog / intervalInMs(rate))));
}

/** When a bucket at `tat` holds one whole token more than now; now when it is full. */
export function nextTokenAtInMs(rate: BucketRate, tatInMs: number | undefined, nowInMs: number): number {
  const remaining = remainingAt(rate, tatInMs, nowInMs);
  if (remaining >= rate.maxBurst || tatInMs === undefined) return nowInMs;
  return tatInMs - (rate.maxBurst - remaining - 1) * intervalInMs(rate);
}

/** The bucket as a request sees it, refused or not. */
export function bucketState(rate: BucketRate, tatInMs: number | undefined, nowInMs: number): BucketState {
  return {
    limit: rate.requestsPerMinute,
    remaining: remainingAt(rate, tatInMs, nowInMs),
    resetAt: new Date(Math.ceil(nextTokenAtInMs(rate, tatInMs, nowInMs))).toISOString(),
  };
}

export function refusedState(rate: BucketRate, tatInMs: number, nowInMs: number): BucketState {
  const state = bucketState(rate, tatInMs, nowInMs);
  const waitInMs = Date.parse(state.resetAt) - nowInMs;
  return { ...state, remaining: 0, retryAfterInSeconds: Math.max(1, Math.ceil(waitInMs / 1000)) };
}

/**
 * The pure step: what one request does to a bucket at `tat` (undefined: none yet), or what taking
 * `count` tokens at once does (all of them, or none; `count` is at most the burst).
 */
export function take(
  rate: BucketRate,
  tatInMs: number | undefined,
  nowInMs: number,
  count = 1,
): { admitted: true; tatInMs: number } | { admitted: false } {
  const interval = intervalInMs(rate);
  if (tatInMs === undefined || tatInMs < nowInMs)
    return { admitted: true, tatInMs: nowInMs + count * interval };
  if (tatInMs <= admitLimitInMs(rate, nowInMs, count))
    return { admitted: true, tatInMs: tatInMs + count * interval };
  return { admitted: false };
}
