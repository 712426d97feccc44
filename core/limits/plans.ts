/**
 * What each plan allows: the `api` bucket (every x-api-key request that is not an execution) as
 * the interface's table gives it, the `sync` and `async` execution buckets with a burst of twice
 * the rate, and the usage limit per calendar month (USD). Failed authentication has one rate for
 * every source address.
 *
 * Each plan also caps a workspace's runs in progress (./run-slots.ts), so that one tenant cannot
 * take the account's Lambda concurrency.
 *
 * `RATE_LIMITS_JSON` may override any bucket, e.g. `{"free": {"sync": {"requestsPerMinute": 600,
 * "maxBurst": 1200}}, "authFailures": {"requestsPerMinute": 5, "maxBurst": 5}}`, and a plan's cap
 * on runs in progress (`{"free": {"runsInProgress": 10}}`); `USAGE_LIMITS_JSON` any plan's usage
 * limit, e.g. `{"free": 25}`.
 */
import type { Plan } from '../identity/types';
import type { BucketRate } from './token-bucket';
import type { BucketKind } from './types';

export const plans = ['free', 'pro', 'team', 'enterprise'] as const satisfies readonly Plan[];

export type PlanLimits = Record<BucketKind, BucketRate>;

export interface LimitsConfig {
  plans: Record<Plan, PlanLimits>;
  usageLimitsUsd: Record<Plan, number>;
  /** How many runs one workspace may have in progress at once, by the plan of whoever starts one. */
  runsInProgress: Record<Plan, number>;
  /** Failed authentications a source address may make. */
  authFailures: BucketRate;
  /**
   * Failed access attempts (wrong password, address not on the list) one form takes, from everyone
   * together; the right password or an allowed address never draws from it.
   */
  formFailures: BucketRate;
  /** Form access attempts (submissions, config reads with credentials) one source address may make, to all forms together. */
  formSources: BucketRate;
}

const perMinute = (requestsPerMinute: number, maxBurst = requestsPerMinute * 2): BucketRate => ({
  requestsPerMinute,
  maxBurst,
});

export const defaultPlanLimits: Record<Plan, PlanLimits> = {
  free: { api: perMinute(10, 20), sync: perMinute(60), async: perMinute(200) },
  pro: { api: perMinute(30, 60), sync: perMinute(150), async: perMinute(1000) },
  team: { api: perMinute(60, 120), sync: perMinute(300), async: perMinute(2500) },
  enterprise: { api: perMinute(120, 240), sync: perMinute(600), async: perMinute(5000) },
};

export const defaultUsageLimitsUsd: Record<Plan, number> = {
  free: 10,
  pro: 100,
  team: 500,
  enterprise: 10_000,
};

/**
 * Runs in progress per workspace: a sync run holds its slot for seconds, an async one while it
 * waits, so the caps leave room for a plan's bursts of async work; the largest still fits many
 * workspaces in the account's default 1,000 concurrent Lambda executions.
 */
export const defaultRunsInProgress: Record<Plan, number> = {
  free: 5,
  pro: 20,
  team: 50,
  enterprise: 200,
};

/** A cap above this would not fit the workspace's item (a slot is about 50 bytes of a 400 KB item). */
export const maxRunsInProgress = 5_000;

export const defaultAuthFailureRate: BucketRate = perMinute(10, 20);
/**
 * Ten times what one source may try (its `formSources` and `authFailures` bursts are 20), so no
 * single address can empty it; many addresses together can, and then stop everyone's attempts.
 */
export const defaultFormFailureRate: BucketRate = perMinute(60, 600);
export const defaultFormSourceRate: BucketRate = perMinute(10, 20);

/** Rates that are not a plan's: keyed by their own name in `RATE_LIMITS_JSON`. */
const sharedRateNames = ['authFailures', 'formFailures', 'formSources'] as const;
type SharedRateName = (typeof sharedRateNames)[number];

/** The defaults with the overrides of `RATE_LIMITS_JSON` applied; a malformed override is an error. */
export function planLimitsFrom(json: string | undefined): Record<Plan, PlanLimits> {
  return rateLimitsFrom(json).plans;
}

export function limitsConfigFrom(env: {
  RATE_LIMITS_JSON?: string;
  USAGE_LIMITS_JSON?: string;
}): LimitsConfig {
  return { ...rateLimitsFrom(env.RATE_LIMITS_JSON), usageLimitsUsd: usageLimitsFrom(env.USAGE_LIMITS_JSON) };
}

function rateLimitsFrom(json: string | undefined): Omit<LimitsConfig, 'usageLimitsUsd'> {
  const limits = structuredClone(defaultPlanLimits);
  const runsInProgress = { ...defaultRunsInProgress };
  const shared: Record<SharedRateName, BucketRate> = {
    authFailures: defaultAuthFailureRate,
    formFailures: defaultFormFailureRate,
    formSources: defaultFormSourceRate,
  };
  for (const [name, kinds] of Object.entries(parseObject('RATE_LIMITS_JSON', json))) {
    if ((sharedRateNames as readonly string[]).includes(name)) {
      shared[name as SharedRateName] = rateFrom(kinds, name);
      continue;
    }
    if (!(name in limits)) throw new Error(`RATE_LIMITS_JSON: unknown plan "${name}"`);
    for (const [kind, rate] of Object.entries((kinds ?? {}) as Record<string, unknown>)) {
      if (kind === 'runsInProgress') {
        runsInProgress[name as Plan] = runsInProgressFrom(rate, name);
        continue;
      }
      if (!(kind in limits[name as Plan]))
        throw new Error(`RATE_LIMITS_JSON: unknown bucket "${name}.${kind}"`);
      limits[name as Plan][kind as BucketKind] = rateFrom(rate, `${name}.${kind}`);
    }
  }
  return { plans: limits, runsInProgress, ...shared };
}

function runsInProgressFrom(value: unknown, plan: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > maxRunsInProgress) {
    throw new Error(
      `RATE_LIMITS_JSON: ${plan}.runsInProgress needs a whole number of runs from 1 to ${maxRunsInProgress}`,
    );
  }
  return value;
}

function usageLimitsFrom(json: string | undefined): Record<Plan, number> {
  const limits = { ...defaultUsageLimitsUsd };
  for (const [plan, value] of Object.entries(parseObject('USAGE_LIMITS_JSON', json))) {
    if (!(plan in limits)) throw new Error(`USAGE_LIMITS_JSON: unknown plan "${plan}"`);
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new Error(`USAGE_LIMITS_JSON: ${plan} needs a number of USD, zero or more`);
    }
    limits[plan as Plan] = value;
  }
  return limits;
}

function parseObject(name: string, json: string | undefined): Record<string, unknown> {
  if (json === undefined || json.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new Error(`${name} is not valid JSON`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new Error(`${name} must be a JSON object`);
  }
  return value as Record<string, unknown>;
}

function rateFrom(value: unknown, name: string): BucketRate {
  const { requestsPerMinute, maxBurst } = (value ?? {}) as Partial<BucketRate>;
  if (!isPositive(requestsPerMinute) || !isPositive(maxBurst) || maxBurst < 1) {
    throw new Error(`RATE_LIMITS_JSON: ${name} needs requestsPerMinute and maxBurst, both above 0`);
  }
  return { requestsPerMinute, maxBurst: Math.floor(maxBurst) };
}

function isPositive(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}

const planRank: Record<Plan, number> = { free: 0, pro: 1, team: 2, enterprise: 3 };

/** Whether plan `a` gives more than plan `b`. */
export function ranksAbove(a: Plan, b: Plan): boolean {
  return planRank[a] > planRank[b];
}
