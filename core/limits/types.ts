/** Rate-limit buckets: one per owner (a user, or the organization whose plan applies) and kind. */
import type { BucketRate } from './token-bucket';

export const bucketKinds = ['api', 'sync', 'async'] as const;
export type BucketKind = (typeof bucketKinds)[number];

/** Port: takes one token from a bucket atomically; the new `tat`, or the refusing one. */
export interface BucketStore {
  take(
    bucketKey: string,
    rate: BucketRate,
    nowInMs: number,
  ): Promise<{ admitted: true; tatInMs: number } | { admitted: false; tatInMs: number }>;
}
