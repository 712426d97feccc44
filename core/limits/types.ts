/**
 * Rate and usage limits. Limits belong to an owner: a user, or the organization whose plan applies
 * to the user (its members then share its buckets and its usage), or, for failed authentication,
 * a source address. Each owner has one token bucket per kind and a cost per usage period.
 */
import type { Plan } from '../identity/types';
import type { BucketRate } from './token-bucket';

/** `api`: every x-api-key request that is not an execution; `sync`/`async`: executions. */
export const bucketKinds = ['api', 'sync', 'async'] as const;
export type BucketKind = (typeof bucketKinds)[number];
/** Failed authentication, counted per source address. */
export type BucketName = BucketKind | 'authFailures';

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
  /** The bucket after the take (admitted) or as it stood (refused). */
  tatInMs: number;
  /** The owner's cost in the period asked for (0 when none was asked). */
  periodCostUsd: number;
} & ({ admitted: true } | { admitted: false });

/** An owner's limits as stored: each bucket's `tat` by bucket id (absent: never used) and a period's cost. */
export interface OwnerLimits {
  tatInMs: Record<string, number>;
  periodCostUsd: number;
}

/** Port: the owners' buckets and usage. */
export interface LimitsStore {
  /**
   * Takes one token from the owner's bucket atomically (no read-modify-write), and answers the
   * owner's cost in `period` as it stood, so an execution is admitted with one call.
   */
  take(
    ownerKey: string,
    bucketId: string,
    rate: BucketRate,
    nowInMs: number,
    period?: string,
  ): Promise<TakeOutcome>;
  read(ownerKey: string, period: string): Promise<OwnerLimits>;
  /** Adds a run's cost to the owner's period, once per execution id however often it is called. */
  addRunCost(ownerKey: string, period: string, executionId: string, costInUsd: number): Promise<void>;
}
