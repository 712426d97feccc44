import { requireEnv } from '../../adapters/aws/require-env';
import { DynamoIdentityStore } from '../../adapters/dynamodb/identity-store';
import { ENTITIES_TABLE_ENV } from '../../adapters/dynamodb/dynamo-table';
import type { IdentityDeps } from '../../core/identity/service';
import { withLookupCache } from '../../core/identity/lookup-cache';
import { withOwnerChanges } from '../../core/limits/owner-changes';
import type { IdentityStore } from '../../core/identity/types';
import { keptPerClient } from './per-client';
import { setting } from '../settings';

/**
 * How long a warm function keeps an API key's record, a workspace membership and a workflow
 * record it has read (`LOOKUP_CACHE_TTL_MS`, default 10 s; 0 keeps nothing): a key revoked, a
 * member removed or a workflow deployed through another instance is seen within this bound
 * (core/identity/lookup-cache.ts, core/workflows/record-cache.ts).
 */
export function lookupCacheTtlInMs(): number {
  return setting('LOOKUP_CACHE_TTL_MS');
}

/**
 * One store per process, so its lookup cache serves every request; changes of an owner's limits
 * made through it reach the process's token leases (core/limits/owner-changes.ts).
 */
const identityStore = keptPerClient(
  (): IdentityStore =>
    withOwnerChanges(
      withLookupCache(DynamoIdentityStore.fromEnv(), { ttlInMs: lookupCacheTtlInMs(), nowInMs: Date.now }),
    ),
  () => requireEnv(ENTITIES_TABLE_ENV),
);

export function identityDeps(): IdentityDeps {
  return { store: identityStore(), now: () => new Date() };
}
