/**
 * Token leases: a process that draws from one bucket many times a second takes a few of the next
 * tokens with the one it needs, in the same conditional write, and hands them to the requests that
 * follow within `lifetimeInMs`, so those are admitted with no write of their own.
 *
 * Nothing is admitted beyond the bucket: every leased token was taken in the store, within the burst,
 * before it is handed out. What a lease costs is fairness and precision, and both are bounded:
 * - A bucket leases only what its recent demand in this process would use within the lifetime
 *   (`demand - 1`, at most `maxTokens` taken or in flight), and at most a quarter of what the bucket
 *   held when last seen, so tokens rarely wait unused while another process is refused.
 * - A run's base charge is counted when its token is taken, leased or not, so an answered run's
 *   charge is always stored. A leased token that expires unused has its charge given back by
 *   `sweep` (wiring runs it once a lifetime). Until then the stored period cost is ahead by at most
 *   `maxTokens` charges of each bucket: this process's views take them off (`outstandingUsd`);
 *   another process's views, and the store if this process ends first, keep them.
 * - A leased admission answers the owner's state (the user, the period's cost) as the take that
 *   leased it read it: at most `lifetimeInMs` old.
 */
import type { User } from '../identity/types';
import { type BucketRate, remainingAt } from './token-bucket';
import { roundedUsd } from '../money';
import type { LimitsStore } from './types';

export interface TokenLeaseOptions {
  /** The most tokens of one bucket this process holds or is taking ahead; 0 leases none. */
  maxTokens: number;
  /** How long a leased token may be handed out after it was taken. */
  lifetimeInMs: number;
}

/** A token taken ahead, with what its request will be told. */
export interface LeasedToken {
  /** The bucket's `tat` as if this token were the last one taken (for the X-RateLimit-* headers). */
  tatInMs: number;
  /** The owner's cost in `period` before this token's charge. */
  periodCostUsd: number;
  /** What was charged for it when it was taken; given back if it expires unused. */
  chargeUsd: number;
  ownerKey: string;
  period: string;
  expiresAtInMs: number;
  user?: User;
}

/** A charge to give back: tokens that expired unused. */
export interface LeaseRefund {
  ownerKey: string;
  period: string;
  usd: number;
}

interface BucketLeases {
  tokens: LeasedToken[];
  /** Tokens being taken ahead by writes not answered yet. */
  inFlight: number;
  /** When this process drew from the bucket lately (at most `maxTokens + 1` moments). */
  recentDrawsInMs: number[];
  /** The bucket's `tat` as this process last saw it (none yet: nothing is taken ahead). */
  lastTatInMs?: number;
}

const ownerPeriodKey = (ownerKey: string, period: string) => `${ownerKey}|${period}`;

export class TokenLeases {
  /** Buckets drawn from lately; `sweep` drops those idle for a lifetime. */
  private readonly buckets = new Map<string, BucketLeases>();
  /** Charges of live leased tokens, by owner and period. */
  private readonly outstanding = new Map<string, number>();
  private readonly refunds = new Map<string, LeaseRefund>();

  constructor(readonly options: TokenLeaseOptions) {}

  /**
   * A live leased token of the bucket (`key` names the bucket and the terms it was taken on), or
   * none. Counts the draw toward the bucket's demand either way.
   */
  draw(key: string, nowInMs: number): LeasedToken | undefined {
    const bucket = this.bucketOf(key);
    bucket.recentDrawsInMs.push(nowInMs);
    if (bucket.recentDrawsInMs.length > this.options.maxTokens + 1) bucket.recentDrawsInMs.shift();
    this.dropExpired(bucket, nowInMs);
    const token = bucket.tokens.shift();
    if (token) this.addOutstanding(token, -token.chargeUsd);
    return token;
  }

  /**
   * How many tokens to take ahead with the one being taken now, from the bucket as this process
   * last saw it; they count as in flight until `settle`.
   */
  reserve(key: string, rate: BucketRate, nowInMs: number): number {
    const bucket = this.bucketOf(key);
    if (bucket.lastTatInMs === undefined) return 0;
    const since = nowInMs - this.options.lifetimeInMs;
    const demand = bucket.recentDrawsInMs.filter((moment) => moment > since).length;
    const held = bucket.tokens.length + bucket.inFlight;
    const wanted = Math.min(this.options.maxTokens, demand - 1) - held;
    const remaining = remainingAt(rate, bucket.lastTatInMs, nowInMs);
    const extra = Math.max(0, Math.min(wanted, Math.floor(remaining / 4)));
    bucket.inFlight += extra;
    return extra;
  }

  /**
   * The write that reserved `extra` tokens is answered: it found the bucket at `tatInMs`, and
   * `granted` are the tokens it took ahead.
   */
  settle(key: string, extra: number, tatInMs: number | undefined, granted: LeasedToken[] = []): void {
    const bucket = this.bucketOf(key);
    bucket.inFlight -= extra;
    if (tatInMs !== undefined) bucket.lastTatInMs = Math.max(bucket.lastTatInMs ?? tatInMs, tatInMs);
    bucket.tokens.push(...granted);
    for (const token of granted) this.addOutstanding(token, token.chargeUsd);
  }

  /**
   * What the owner's period cost holds of this process's leased tokens not used yet: charged ahead,
   * live or expired and not given back.
   */
  outstandingUsd(ownerKey: string, period: string): number {
    const key = ownerPeriodKey(ownerKey, period);
    return roundedUsd((this.outstanding.get(key) ?? 0) + (this.refunds.get(key)?.usd ?? 0));
  }

  /** A refund that could not be written: pending again, for the next sweep. */
  addRefund(refund: LeaseRefund): void {
    const key = ownerPeriodKey(refund.ownerKey, refund.period);
    const pending = this.refunds.get(key);
    this.refunds.set(key, { ...refund, usd: roundedUsd((pending?.usd ?? 0) + refund.usd) });
  }

  /** Drops the owner's leased tokens (its plan or limits changed); their charges are given back. */
  forgetOwner(ownerKey: string): void {
    for (const bucket of this.buckets.values()) {
      if (bucket.tokens[0]?.ownerKey !== ownerKey) continue;
      for (const token of bucket.tokens) token.expiresAtInMs = Number.NEGATIVE_INFINITY;
      this.dropExpired(bucket, 0);
    }
  }

  /**
   * Drops every expired token, and the buckets not drawn from for a lifetime with nothing held;
   * answers all pending refunds, taken out (to be written now).
   */
  sweep(nowInMs: number): LeaseRefund[] {
    for (const [key, bucket] of this.buckets) {
      this.dropExpired(bucket, nowInMs);
      const lastDrawInMs = bucket.recentDrawsInMs.at(-1) ?? Number.NEGATIVE_INFINITY;
      const idle = lastDrawInMs <= nowInMs - this.options.lifetimeInMs;
      if (idle && bucket.tokens.length === 0 && bucket.inFlight === 0) this.buckets.delete(key);
    }
    const due = [...this.refunds.values()];
    this.refunds.clear();
    return due;
  }

  private dropExpired(bucket: BucketLeases, nowInMs: number): void {
    while (bucket.tokens.length > 0 && bucket.tokens[0].expiresAtInMs <= nowInMs) {
      const token = bucket.tokens.shift() as LeasedToken;
      if (token.chargeUsd === 0) continue;
      this.addOutstanding(token, -token.chargeUsd);
      this.addRefund({ ownerKey: token.ownerKey, period: token.period, usd: token.chargeUsd });
    }
  }

  private addOutstanding(token: LeasedToken, usd: number): void {
    if (usd === 0) return;
    const key = ownerPeriodKey(token.ownerKey, token.period);
    const sum = roundedUsd((this.outstanding.get(key) ?? 0) + usd);
    if (sum > 0) this.outstanding.set(key, sum);
    else this.outstanding.delete(key);
  }

  private bucketOf(key: string): BucketLeases {
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = { tokens: [], inFlight: 0, recentDrawsInMs: [] };
      this.buckets.set(key, bucket);
    }
    return bucket;
  }
}

/**
 * Gives back to the store the charges of the leased tokens that expired unused (`sweep`); a refund
 * whose store cannot be made or reached now is kept for the next sweep. The store is made only when
 * something is due.
 */
export async function giveBackExpired(
  leases: TokenLeases,
  storeOf: () => Pick<LimitsStore, 'charge'>,
  nowInMs: number,
): Promise<void> {
  let store: Pick<LimitsStore, 'charge'> | undefined;
  for (const refund of leases.sweep(nowInMs)) {
    try {
      store ??= storeOf();
      await store.charge(refund.ownerKey, refund.period, -refund.usd);
    } catch {
      leases.addRefund(refund);
    }
  }
}
