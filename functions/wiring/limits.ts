import { DynamoIdentityStore } from '../../adapters/dynamodb/identity-store';
import { DynamoLimitsStore } from '../../adapters/dynamodb/limits-store';
import { type LimitsConfig, limitsConfigFrom } from '../../core/limits/plans';
import type { Principal } from '../../core/identity/service';
import { type LimitsBlock, type LimitsDeps, limitOwnerOf, limitsBlock } from '../../core/limits/service';
import type { RequestLimits } from '../http/limits';

let cached: { source: string; config: LimitsConfig } | undefined;

/**
 * `RATE_LIMITS_JSON` and `USAGE_LIMITS_JSON` parsed once per value: a malformed one fails every
 * request with a 500 (and a log line naming it) rather than letting anything through unlimited.
 */
export function limitsConfig(): LimitsConfig {
  const source = `${process.env.RATE_LIMITS_JSON ?? ''}\n${process.env.USAGE_LIMITS_JSON ?? ''}`;
  if (cached?.source !== source)
    cached = {
      source,
      config: limitsConfigFrom({
        RATE_LIMITS_JSON: process.env.RATE_LIMITS_JSON,
        USAGE_LIMITS_JSON: process.env.USAGE_LIMITS_JSON,
      }),
    };
  return cached.config;
}

export function limitsDeps(): LimitsDeps {
  return {
    store: DynamoLimitsStore.fromEnv(),
    // Read only for users in an organization; routes that count failed authentications need no more.
    organizations: { getOrganization: (id) => DynamoIdentityStore.fromEnv().getOrganization(id) },
    config: limitsConfig(),
    now: () => new Date(),
  };
}

/** USD charged to every run on top of its model costs; `BASE_CHARGE_PER_RUN_USD`, default 0.001. */
export function baseChargePerRunInUsd(): number {
  const configured = Number(process.env.BASE_CHARGE_PER_RUN_USD ?? 0.001);
  if (!Number.isFinite(configured) || configured < 0) {
    throw new Error('BASE_CHARGE_PER_RUN_USD must be a number of USD, zero or more');
  }
  return configured;
}

/** The limits block of the caller: the owner the request was admitted under (read again only if unknown). */
export async function limitsOf(principal: Principal, limits: RequestLimits): Promise<LimitsBlock> {
  const deps = limitsDeps();
  return limitsBlock(deps, limits.owner ?? (await limitOwnerOf(deps, principal.user)));
}
