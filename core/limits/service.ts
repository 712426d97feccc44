/**
 * The limit use cases: whose limits apply to a user, taking a token, refusing a run past the usage
 * limit, adding a run's cost once, and the views of an owner's limits (the limits block of the log
 * API and notifications, and the usage limits object).
 */
import { UsageLimitExceededError } from '../errors';
import type { IdentityStore, User } from '../identity/types';
import { type LimitsConfig, ranksAbove } from './plans';
import { type BucketRate, type BucketState, bucketState, intervalInMs, refusedState } from './token-bucket';
import type { LeasedToken, TokenLeases } from './token-leases';
import {
  type BucketKind,
  type BucketName,
  bucketIdOf,
  type LimitOwner,
  type LimitsStore,
  type TakeOptions,
  type TakeOutcome,
} from './types';
import { roundedUsd } from '../money';

export interface LimitsDeps {
  store: LimitsStore;
  organizations: Pick<IdentityStore, 'getOrganization'>;
  config: LimitsConfig;
  now: () => Date;
  /** The process's token leases (./token-leases.ts); without them every token is its own write. */
  leases?: TokenLeases;
}

/** What a request drew from a bucket (or, when it draws nothing, saw of it). */
export interface Admission {
  bucket: BucketName;
  admitted: boolean;
  state: BucketState;
  /** The owner's cost in the current period, before this request's charge. */
  periodCostUsd: number;
  /** What the request added to the period's cost (a run's base charge), to refund if no run starts. */
  charged?: { ownerKey: string; period: string; usd: number };
  /** For a user owner: the user as stored now (read by the same write). */
  user?: User;
}

/**
 * The user's own limits, or their organization's when its plan ranks higher: the organization is
 * then the owner, so its members share its buckets and its usage.
 */
export async function limitOwnerOf(deps: LimitsDeps, user: User): Promise<LimitOwner> {
  if (user.organizationId) {
    const organization = await deps.organizations.getOrganization(user.organizationId);
    if (organization && ranksAbove(organization.plan, user.plan)) {
      return {
        key: `org#${organization.id}`,
        plan: organization.plan,
        usageLimitUsd: organization.usageLimitUsd ?? deps.config.usageLimitsUsd[organization.plan],
      };
    }
  }
  return ownLimitsOf(deps, user);
}

/** The usage period a moment falls in: its calendar month, UTC (`2026-11`). */
export function usagePeriodOf(moment: Date | string): string {
  return new Date(moment).toISOString().slice(0, 7);
}

function rateOf(deps: LimitsDeps, owner: LimitOwner, kind: BucketKind): BucketRate {
  return deps.config.plans[owner.plan][kind];
}

/**
 * Takes one token from the owner's bucket; a refused take is answered, not thrown. An execution's
 * base charge (`chargeUsd`) is counted in the same write, so admitting a run costs one write.
 */
export async function takeToken(
  deps: LimitsDeps,
  owner: LimitOwner,
  kind: BucketKind,
  chargeUsd = 0,
  guard?: TakeOptions['guard'],
): Promise<Admission> {
  const rate = rateOf(deps, owner, kind);
  if (!deps.leases) return take(deps, owner.key, kind, rate, chargeUsd, guard);
  return takeLeasing(deps, deps.leases, owner.key, kind, rate, chargeUsd, guard);
}

/** A user's own limits (for a user in no organization, or whose organization ranks no higher). */
export function ownLimitsOf(deps: Pick<LimitsDeps, 'config'>, user: User): LimitOwner {
  return {
    key: `user#${user.id}`,
    plan: user.plan,
    usageLimitUsd: user.usageLimitUsd ?? deps.config.usageLimitsUsd[user.plan],
  };
}

/** Counts a failed authentication against its source address. */
export async function takeAuthFailure(deps: LimitsDeps, sourceAddress: string): Promise<Admission> {
  return take(deps, `source#${sourceAddress}`, 'authFailures', deps.config.authFailures, 0);
}

/**
 * Takes a form submission's tokens: one from the source address, then one from the form. A refused
 * take is answered (the first refusal), not thrown.
 */
/** A form access attempt (a submission, a config read with credentials) takes a token of its source address. */
export async function takeFormSource(deps: LimitsDeps, sourceAddress: string): Promise<Admission> {
  return take(deps, `formSource#${sourceAddress}`, 'formSources', deps.config.formSources, 0);
}

/**
 * The form's bucket of failed attempts as it stands, read and not taken: an attempt is refused
 * before its check while the bucket is empty, and a right one never pays.
 */
export async function formFailuresLeft(deps: LimitsDeps, formId: string): Promise<Admission> {
  const rate = deps.config.formFailures;
  const nowInMs = deps.now().getTime();
  const stored = await deps.store.read(`form#${formId}`, usagePeriodOf(deps.now()));
  const tatInMs = stored.tatInMs[bucketIdOf('formFailures', rate)];
  const state = bucketState(rate, tatInMs, nowInMs);
  return state.remaining > 0
    ? { bucket: 'formFailures', admitted: true, state, periodCostUsd: 0 }
    : {
        bucket: 'formFailures',
        admitted: false,
        state: refusedState(rate, tatInMs ?? nowInMs, nowInMs),
        periodCostUsd: 0,
      };
}

/** A failed attempt at a form (wrong password, address not admitted) takes a token of the form. */
export async function takeFormFailure(deps: LimitsDeps, formId: string): Promise<Admission> {
  return take(deps, `form#${formId}`, 'formFailures', deps.config.formFailures, 0);
}

async function take(
  deps: LimitsDeps,
  ownerKey: string,
  bucket: BucketName,
  rate: BucketRate,
  chargeUsd: number,
  guard?: TakeOptions['guard'],
): Promise<Admission> {
  const now = deps.now();
  const nowInMs = now.getTime();
  const period = usagePeriodOf(now);
  const outcome = await deps.store.take(ownerKey, bucketIdOf(bucket, rate), rate, nowInMs, {
    period,
    chargeUsd,
    guard,
  });
  return admissionOf({ bucket, rate, nowInMs, ownerKey, period, chargeUsd }, outcome);
}

/** What a request is told of a take of its one token. */
function admissionOf(
  request: {
    bucket: BucketName;
    rate: BucketRate;
    nowInMs: number;
    ownerKey: string;
    period: string;
    chargeUsd: number;
  },
  outcome: TakeOutcome,
): Admission {
  const { bucket, rate, nowInMs, ownerKey, period, chargeUsd } = request;
  return {
    bucket,
    admitted: outcome.admitted,
    state: outcome.admitted
      ? bucketState(rate, outcome.tatInMs, nowInMs)
      : refusedState(rate, outcome.tatInMs, nowInMs),
    periodCostUsd: outcome.periodCostUsd,
    ...(outcome.admitted && chargeUsd > 0 ? { charged: { ownerKey, period, usd: chargeUsd } } : {}),
    ...(outcome.user ? { user: outcome.user } : {}),
  };
}

/**
 * `take` for an owner's own buckets, through the process's leases: a leased token when one is live,
 * otherwise a take of this token and of as many ahead as the bucket's demand asks for, in one write.
 */
async function takeLeasing(
  deps: LimitsDeps,
  leases: TokenLeases,
  ownerKey: string,
  bucket: BucketKind,
  rate: BucketRate,
  chargeUsd: number,
  guard: TakeOptions['guard'],
): Promise<Admission> {
  const now = deps.now();
  const nowInMs = now.getTime();
  const period = usagePeriodOf(now);
  const bucketId = bucketIdOf(bucket, rate);
  // The terms a token was taken on are part of the lease: a guarded take's tokens serve guarded takes.
  const leaseKey = `${ownerKey}|${bucketId}|${guard?.plan ?? ''}`;
  const request = { bucket, rate, nowInMs, ownerKey, period, chargeUsd };
  const leased = leases.draw(leaseKey, nowInMs);
  if (leased) return admissionOf(request, { ...leased, admitted: true });
  const interval = intervalInMs(rate);
  const extra = leases.reserve(leaseKey, rate, nowInMs);
  const takeOf = (count: number) =>
    deps.store.take(ownerKey, bucketId, rate, nowInMs, {
      period,
      chargeUsd: chargeUsd * count,
      guard,
      count,
    });
  const granted: LeasedToken[] = [];
  let outcome: TakeOutcome | undefined;
  try {
    outcome = await takeOf(1 + extra);
    let taken = 1 + extra;
    // Too few tokens for the lease, or the guard failed: this request's own token may still be there.
    if (!outcome.admitted && extra > 0 && guardHolds(outcome, guard)) {
      outcome = await takeOf(1);
      taken = 1;
    }
    if (!outcome.admitted) return admissionOf(request, outcome);
    const spentBeforeUsd = spentUsd(deps, ownerKey, period, outcome.periodCostUsd);
    for (let index = 1; index < taken; index++) {
      granted.push({
        tatInMs: outcome.tatInMs - (taken - 1 - index) * interval,
        periodCostUsd: roundedUsd(spentBeforeUsd + index * chargeUsd),
        chargeUsd,
        ownerKey,
        period,
        expiresAtInMs: nowInMs + leases.options.lifetimeInMs,
        user: outcome.user,
      });
    }
    return admissionOf(request, {
      ...outcome,
      tatInMs: outcome.tatInMs - (taken - 1) * interval,
      periodCostUsd: spentBeforeUsd,
    });
  } finally {
    leases.settle(leaseKey, extra, outcome?.tatInMs, granted);
  }
}

/** A refused guarded take whose user still fits the guard was refused for want of tokens. */
function guardHolds(outcome: TakeOutcome, guard: TakeOptions['guard']): boolean {
  if (!guard) return true;
  return outcome.user?.plan === guard.plan && !outcome.user.organizationId;
}

/**
 * A run by hand draws no token: its base charge is counted, and it sees the `sync` bucket as it
 * stands (one write, as a take is).
 */
export async function admitManualRun(
  deps: LimitsDeps,
  owner: LimitOwner,
  chargeUsd: number,
): Promise<Admission> {
  const now = deps.now();
  const period = usagePeriodOf(now);
  const limits =
    chargeUsd > 0
      ? await deps.store.charge(owner.key, period, chargeUsd)
      : await deps.store.read(owner.key, period);
  const rate = rateOf(deps, owner, 'sync');
  return {
    bucket: 'sync',
    admitted: true,
    state: bucketState(rate, limits.tatInMs[bucketIdOf('sync', rate)], now.getTime()),
    periodCostUsd: spentUsd(deps, owner.key, period, limits.periodCostUsd),
    ...(chargeUsd > 0 ? { charged: { ownerKey: owner.key, period, usd: chargeUsd } } : {}),
  };
}

/** Takes back the charge of a request that started no run after all. */
export async function refundCharge(deps: Pick<LimitsDeps, 'store'>, admission: Admission): Promise<void> {
  if (!admission.charged) return;
  const { ownerKey, period, usd } = admission.charged;
  await deps.store.charge(ownerKey, period, -usd);
}

/** Refuses a new run once the period's cost has reached the owner's usage limit. */
export function requireUsageLeft(owner: LimitOwner, periodCostUsd: number, now: Date): void {
  const error = usageLimitErrorOf(owner, periodCostUsd, now);
  if (error) throw error;
}

/** The refusal of a new run once the period's cost has reached the owner's usage limit, if it has. */
export function usageLimitErrorOf(
  owner: LimitOwner,
  periodCostUsd: number,
  now: Date,
): UsageLimitExceededError | undefined {
  if (periodCostUsd < owner.usageLimitUsd) return undefined;
  const nextPeriod = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
  return new UsageLimitExceededError(
    `Usage limit exceeded: ${usd(periodCostUsd)} used of the ${usd(owner.usageLimitUsd)} this month allows on the ${owner.plan} plan. New runs are refused until ${nextPeriod.slice(0, 10)} or until the limit is raised`,
  );
}

/** Dollars as people write them, with the fractions of a cent that small runs cost: `$0.003`, `$10`. */
const usd = (value: number) => `$${Number(value.toFixed(6))}`;

/** The owner of a run no request starts (a schedule fire); a UsageLimitExceededError past its limit. */
export async function admitBackgroundRun(deps: LimitsDeps, user: User): Promise<LimitOwner> {
  const owner = await limitOwnerOf(deps, user);
  const now = deps.now();
  const period = usagePeriodOf(now);
  const { periodCostUsd } = await deps.store.read(owner.key, period);
  requireUsageLeft(owner, spentUsd(deps, owner.key, period, periodCostUsd), now);
  return owner;
}

/**
 * Adds a finished run's cost to the period it started in, once however often it is called; the
 * part counted when the run was admitted (its base charge) is not added again.
 */
export async function recordRunCost(
  store: Pick<LimitsStore, 'addRunCost'>,
  run: { executionId: string; userId: string; usageOwner?: string; startedAt: string; chargedUsd?: number },
  costUsd: number,
): Promise<void> {
  const rest = roundedUsd(costUsd - (run.chargedUsd ?? 0));
  if (!(rest > 0)) return;
  const ownerKey = run.usageOwner ?? `user#${run.userId}`;
  await store.addRunCost(ownerKey, usagePeriodOf(run.startedAt), run.executionId, rest);
}

export interface ExecutionBucketView {
  requestsPerMinute: number;
  maxBurst: number;
  remaining: number;
  resetAt: string;
}

/** The limits block of the log API and of notifications. */
export interface LimitsBlock {
  workflowExecutionRateLimit: { sync: ExecutionBucketView; async: ExecutionBucketView };
  usage: { currentPeriodCost: number; limit: number; plan: string; isExceeded: boolean };
}

export async function limitsBlock(deps: LimitsDeps, owner: LimitOwner): Promise<LimitsBlock> {
  const { buckets, periodCostUsd } = await executionBuckets(deps, owner);
  const view = (kind: 'sync' | 'async'): ExecutionBucketView => ({
    requestsPerMinute: buckets[kind].rate.requestsPerMinute,
    maxBurst: buckets[kind].rate.maxBurst,
    remaining: buckets[kind].state.remaining,
    resetAt: buckets[kind].state.resetAt,
  });
  return {
    workflowExecutionRateLimit: { sync: view('sync'), async: view('async') },
    usage: {
      currentPeriodCost: periodCostUsd,
      limit: owner.usageLimitUsd,
      plan: owner.plan,
      isExceeded: periodCostUsd >= owner.usageLimitUsd,
    },
  };
}

/** The interface's usage limits object (`GET /api/users/me/usage-limits`). */
export interface UsageLimitsView {
  success: true;
  rateLimit: {
    sync: { isLimited: boolean; limit: number; remaining: number; resetAt: string };
    async: { isLimited: boolean; limit: number; remaining: number; resetAt: string };
    authType: 'api' | 'manual';
  };
  usage: { currentPeriodCost: number; limit: number; plan: string };
}

export async function usageLimitsOf(
  deps: LimitsDeps,
  owner: LimitOwner,
  authType: 'api' | 'manual',
): Promise<UsageLimitsView> {
  const { buckets, periodCostUsd } = await executionBuckets(deps, owner);
  const view = (kind: 'sync' | 'async') => ({
    isLimited: buckets[kind].state.remaining === 0,
    limit: buckets[kind].state.limit,
    remaining: buckets[kind].state.remaining,
    resetAt: buckets[kind].state.resetAt,
  });
  return {
    success: true,
    rateLimit: { sync: view('sync'), async: view('async'), authType },
    usage: { currentPeriodCost: periodCostUsd, limit: owner.usageLimitUsd, plan: owner.plan },
  };
}

async function executionBuckets(deps: LimitsDeps, owner: LimitOwner) {
  const now = deps.now();
  const period = usagePeriodOf(now);
  const limits = await deps.store.read(owner.key, period);
  const bucket = (kind: 'sync' | 'async') => {
    const rate = rateOf(deps, owner, kind);
    return { rate, state: bucketState(rate, limits.tatInMs[bucketIdOf(kind, rate)], now.getTime()) };
  };
  return {
    buckets: { sync: bucket('sync'), async: bucket('async') },
    periodCostUsd: spentUsd(deps, owner.key, period, limits.periodCostUsd),
  };
}

/** A stored period cost less what this process's leased tokens not used yet were charged ahead. */
function spentUsd(deps: Pick<LimitsDeps, 'leases'>, ownerKey: string, period: string, storedUsd: number) {
  return deps.leases ? roundedUsd(storedUsd - deps.leases.outstandingUsd(ownerKey, period)) : storedUsd;
}
