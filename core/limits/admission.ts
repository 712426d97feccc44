/**
 * Admitting a request: the token it draws and, for a run, its base charge in the same write, and
 * its refusals: 429 past the burst, 402 past the usage limit (the charge given back). Refusals are
 * answered rather than thrown, so the caller can show the bucket's headers whatever happens.
 */
import { RateLimitExceededError, type ServiceError } from '../errors';
import type { Plan, User } from '../identity/types';
import {
  type Admission,
  admitManualRun,
  type LimitsDeps,
  ownLimitsOf,
  refundCharge,
  takeToken,
  usageLimitErrorOf,
} from './service';
import type { BucketKind, LimitOwner } from './types';

/** What a request draws from: a bucket, or (a run by hand) nothing, showing the `sync` bucket. */
export type RequestBucket = BucketKind | 'manual';

export interface AdmissionResult {
  owner: LimitOwner;
  admission: Admission;
  refusal?: ServiceError;
}

/** Admits a request of the owner's; a run (any bucket but `api`) carries `baseChargeUsd`. */
export async function admitOwner(
  deps: LimitsDeps,
  owner: LimitOwner,
  bucket: RequestBucket,
  baseChargeUsd: number,
): Promise<AdmissionResult> {
  const admission =
    bucket === 'manual'
      ? await admitManualRun(deps, owner, baseChargeUsd)
      : await takeToken(deps, owner, bucket, bucket === 'api' ? 0 : baseChargeUsd);
  return settle(deps, owner, bucket, admission);
}

/**
 * The one-write path for a user last seen on `plan` and in no organization: the take is guarded by
 * that, and answers the user as stored. Undefined when it no longer holds (nothing was taken).
 */
export async function admitKnownUser(
  deps: LimitsDeps,
  userId: string,
  plan: Plan,
  bucket: BucketKind,
  baseChargeUsd: number,
): Promise<(AdmissionResult & { user: User }) | undefined> {
  const assumed = ownLimitsOf(deps, { id: userId, plan } as User);
  const admission = await takeToken(deps, assumed, bucket, bucket === 'api' ? 0 : baseChargeUsd, { plan });
  const user = admission.user;
  if (!user || user.plan !== plan || user.organizationId) return undefined;
  return { user, ...(await settle(deps, ownLimitsOf(deps, user), bucket, admission)) };
}

async function settle(
  deps: LimitsDeps,
  owner: LimitOwner,
  bucket: RequestBucket,
  admission: Admission,
): Promise<AdmissionResult> {
  if (!admission.admitted) return { owner, admission, refusal: rateLimitError(admission) };
  const overLimit =
    bucket === 'api' ? undefined : usageLimitErrorOf(owner, admission.periodCostUsd, deps.now());
  if (!overLimit) return { owner, admission };
  await refundCharge(deps, admission);
  return { owner, admission: { ...admission, charged: undefined }, refusal: overLimit };
}

const bucketWords: Partial<Record<Admission['bucket'], string>> = {
  authFailures: 'failed authentications from this address',
  formSources: 'form submissions from this address',
  formFailures: 'failed attempts at this form (from every address together)',
};

export function rateLimitError(admission: Admission): RateLimitExceededError {
  const retryAfterInSeconds = admission.state.retryAfterInSeconds ?? 1;
  const what = bucketWords[admission.bucket] ?? `the ${admission.bucket} bucket`;
  return new RateLimitExceededError(
    retryAfterInSeconds,
    `Rate limit exceeded: no tokens left in ${what}; retry after ${retryAfterInSeconds} s`,
  );
}

/** The refusal of a source address blocked until `untilInMs` (see blocked-sources.ts). */
export function blockedSourceRefusal(
  deps: Pick<LimitsDeps, 'config'>,
  untilInMs: number,
  nowInMs: number,
): { admission: Admission; refusal: RateLimitExceededError } {
  const retryAfterInSeconds = Math.max(1, Math.ceil((untilInMs - nowInMs) / 1000));
  return {
    admission: {
      bucket: 'authFailures',
      admitted: false,
      state: {
        limit: deps.config.authFailures.requestsPerMinute,
        remaining: 0,
        resetAt: new Date(untilInMs).toISOString(),
        retryAfterInSeconds,
      },
      periodCostUsd: 0,
    },
    refusal: new RateLimitExceededError(
      retryAfterInSeconds,
      `Too many failed authentications from this address; retry after ${retryAfterInSeconds} s`,
    ),
  };
}
