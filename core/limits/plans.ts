/**
 * The rate limits of each plan: the `api` bucket (every x-api-key request that is not an
 * execution) as the interface's table gives it, and the `sync` and `async` execution buckets, with
 * a burst of twice the rate. `RATE_LIMITS_JSON` may override any of them, e.g.
 * `{"free": {"sync": {"requestsPerMinute": 600, "maxBurst": 1200}}}` for a load test.
 */
import type { Plan } from '../identity/types';
import type { BucketKind } from './types';
import type { BucketRate } from './token-bucket';

export type PlanLimits = Record<BucketKind, BucketRate>;

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

/** The defaults with the overrides of `RATE_LIMITS_JSON` applied; a malformed override is an error. */
export function planLimitsFrom(json: string | undefined): Record<Plan, PlanLimits> {
  if (json === undefined || json.trim() === '') return defaultPlanLimits;
  let overrides: unknown;
  try {
    overrides = JSON.parse(json);
  } catch {
    throw new Error('RATE_LIMITS_JSON is not valid JSON');
  }
  const limits = structuredClone(defaultPlanLimits);
  for (const [plan, kinds] of Object.entries((overrides ?? {}) as Record<string, unknown>)) {
    if (!(plan in limits)) throw new Error(`RATE_LIMITS_JSON: unknown plan "${plan}"`);
    for (const [kind, rate] of Object.entries((kinds ?? {}) as Record<string, unknown>)) {
      if (!(kind in limits[plan as Plan]))
        throw new Error(`RATE_LIMITS_JSON: unknown bucket "${plan}.${kind}"`);
      const { requestsPerMinute, maxBurst } = (rate ?? {}) as Partial<BucketRate>;
      if (!isPositive(requestsPerMinute) || !isPositive(maxBurst)) {
        throw new Error(
          `RATE_LIMITS_JSON: ${plan}.${kind} needs requestsPerMinute and maxBurst, both above 0`,
        );
      }
      limits[plan as Plan][kind as BucketKind] = { requestsPerMinute, maxBurst: Math.floor(maxBurst) };
    }
  }
  return limits;
}

function isPositive(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}
