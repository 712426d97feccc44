/**
 * Rate and usage limits. Limits belong to an owner: a user, or the organization whose plan applies
 * to the user (its members then share its buckets and its usage), or, for failed authentication,
 * a source address. Each owner has one token bucket per kind and a cost per usage period.
 */
import type { Plan, User } from '../identity/types';
import type { BucketRate } from './token-bucket';

/** `api`: every x-api-key request that is not an execution; `sync`/`async`: executions. */
export const bucketKinds = ['api', 'sync', 'async'] as const;
export type BucketKind = (typeof bucketKinds)[number];
/**
 * Failed authentication, counted per source address; form access attempts, counted per source
 * address, and the failed ones per form.
 */
export type BucketName = BucketKind | 'authFailures' | 'formFailures' | 'formSources';

/**
 * Where a bucket of a given rate is kept: a plan change moves an owner to other rates, and with
 * them to fresh buckets, since a bucket's state (its `tat`) only means something at its own rate.
 */
export function bucketIdOf(name: BucketName, rate: BucketRate): string {
  return `${name}_${rate.requestsPerMinute}_${rate.maxBurst}`;
}

export interface LimitOwner {
  /** `user#<userId>` or `org#<organizationId>`: the key of the owner's buckets and usage. */
  key: string;
  plan: Plan;
  usageLimitUsd: number;
}

/** What one take of a token found. */
export type TakeOutcome = {
  /** The bucket after the take, all its tokens taken (admitted), or as it stood (refused). */
  tatInMs: number;
  /** The owner's cost in the period asked for, before this take's charge (0 when none was asked). */
  periodCostUsd: number;
  /** For an owner that is a user: the user as stored now (the take read it anyway). */
  user?: User;
} & ({ admitted: true } | { admitted: false });

/** What a take also does: read the cost of a period, and add a charge to it when admitted. */
export interface TakeOptions {
  /** Tokens to take at once (default 1): all of them, or none (core/limits/token-leases.ts). */
  count?: number;
  period?: string;
  /** USD added to the period's cost in the same write, when the token is taken. */
  chargeUsd?: number;
  /**
   * Take only if the user owner is still on this plan and in no organization (what the caller
   * assumed when it chose the bucket); otherwise the take is refused and `user` says why.
   */
  guard?: { plan: Plan };
}

/** An owner's limits as stored: each bucket's `tat` by bucket id (absent: never used) and a period's cost. */
export interface OwnerLimits {
  tatInMs: Record<string, number>;
  periodCostUsd: number;
}

/** Port: the owners' buckets and usage. */
export interface LimitsStore {
  /**
   * Takes one token (or `count`) from the owner's bucket atomically (no read-modify-write), adds the charge of
   * an execution, and answers the owner's cost in `period` as it stood: an execution is admitted
   * (and its base charge counted) with one write.
   */
  take(
    ownerKey: string,
    bucketId: string,
    rate: BucketRate,
    nowInMs: number,
    options?: TakeOptions,
  ): Promise<TakeOutcome>;
  read(ownerKey: string, period: string): Promise<OwnerLimits>;
  /**
   * Adds `usd` to the period's cost (a negative amount refunds) in one write, and answers the
   * owner's limits with the cost as it stood before.
   */
  charge(ownerKey: string, period: string, usd: number): Promise<OwnerLimits>;
  /** Adds a run's cost to the owner's period, once per execution id however often it is called. */
  addRunCost(ownerKey: string, period: string, executionId: string, costInUsd: number): Promise<void>;
}
