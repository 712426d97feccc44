import { DynamoIdentityStore } from '../../adapters/dynamodb/identity-store';
import { DynamoLimitsStore } from '../../adapters/dynamodb/limits-store';
import { DynamoRunSlotStore } from '../../adapters/dynamodb/run-slot-store';
import type { RunAdmissionDeps } from '../../core/runs/admission';
import { type LimitsConfig, limitsConfigFrom } from '../../core/limits/plans';
import type { Principal } from '../../core/identity/service';
import { type LimitsBlock, type LimitsDeps, limitOwnerOf, limitsBlock } from '../../core/limits/service';
import { onOwnerChanged } from '../../core/limits/owner-changes';
import { giveBackExpired, TokenLeases } from '../../core/limits/token-leases';
import type { RequestLimits } from '../http/limits';
import { setting } from '../settings';

let cached: { source: string; config: LimitsConfig } | undefined;

/**
 * `RATE_LIMITS_JSON` (buckets, and each plan's cap on runs in progress) and `USAGE_LIMITS_JSON` parsed once per value: a malformed one fails every
 * request with a 500 (and a log line naming it) rather than letting anything through unlimited.
 */
export function limitsConfig(): LimitsConfig {
  const rateLimits = setting('RATE_LIMITS_JSON');
  const usageLimits = setting('USAGE_LIMITS_JSON');
  const source = `${rateLimits ?? ''}\n${usageLimits ?? ''}`;
  if (cached?.source !== source)
    cached = {
      source,
      config: limitsConfigFrom({ RATE_LIMITS_JSON: rateLimits, USAGE_LIMITS_JSON: usageLimits }),
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
    leases: tokenLeases(),
  };
}

/** The workspaces' runs in progress, alone: what gives a slot back needs no more. */
export function runSlotStore(): DynamoRunSlotStore {
  return DynamoRunSlotStore.fromEnv();
}

/** What admitting a run needs (core/runs/admission.ts): the owners' limits and the workspaces' runs in progress. */
export function runAdmissionDeps(): RunAdmissionDeps {
  return { limits: limitsDeps(), slots: runSlotStore(), baseChargeUsd: baseChargePerRunInUsd() };
}

/** The process's token leases once read: `value` absent when leasing is off. */
let leases: { value?: TokenLeases } | undefined;

/**
 * The process's token leases, read once: `RATE_LIMIT_LEASE_TOKENS` (default 16) tokens of a bucket
 * at most, handed out for a second; none when 0. Each second, the charges of leased tokens that
 * expired unused are given back.
 */
function tokenLeases(): TokenLeases | undefined {
  if (!leases) {
    const maxTokens = setting('RATE_LIMIT_LEASE_TOKENS');
    leases = maxTokens > 0 ? { value: startLeases(maxTokens) } : {};
  }
  return leases.value;
}

function startLeases(maxTokens: number): TokenLeases {
  const started = new TokenLeases({ maxTokens, lifetimeInMs: 1_000 });
  setInterval(() => giveBackExpired(started, () => DynamoLimitsStore.fromEnv(), Date.now()), 1_000).unref();
  onOwnerChanged((ownerKey) => started.forgetOwner(ownerKey));
  return started;
}

/** USD charged to every run on top of its model costs; `BASE_CHARGE_PER_RUN_USD`, default 0.001. */
export function baseChargePerRunInUsd(): number {
  return setting('BASE_CHARGE_PER_RUN_USD');
}

/** The limits block of the caller: the owner the request was admitted under (read again only if unknown). */
export async function limitsOf(principal: Principal, limits: RequestLimits): Promise<LimitsBlock> {
  const deps = limitsDeps();
  return limitsBlock(deps, limits.owner ?? (await limitOwnerOf(deps, principal.user)));
}
