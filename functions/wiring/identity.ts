import { dynamoDocumentClient, requireEnv } from '../../adapters/aws/clients';
import { DynamoIdentityStore } from '../../adapters/dynamodb/identity-store';
import { ENTITIES_TABLE_ENV } from '../../adapters/dynamodb/shared';
import type { IdentityDeps } from '../../core/identity/service';
import { withLookupCache } from '../../core/identity/lookup-cache';
import type { IdentityStore } from '../../core/identity/types';

/**
 * How long a warm function keeps an API key's record, a workspace membership and a workflow
 * record it has read (`LOOKUP_CACHE_TTL_MS`, default 10 s; 0 keeps nothing): a key revoked, a
 * member removed or a workflow deployed through another instance is seen within this bound
 * (core/identity/lookup-cache.ts, core/workflows/record-cache.ts).
 */
export function lookupCacheTtlInMs(): number {
  const value = Number(process.env.LOOKUP_CACHE_TTL_MS);
  return process.env.LOOKUP_CACHE_TTL_MS !== undefined && Number.isFinite(value) && value >= 0
    ? value
    : 10_000;
}

let cached: { client: unknown; tableName: string; store: IdentityStore } | undefined;

/** One store per process, so its lookup cache serves every request (made again when the local stack moves). */
export function identityDeps(): IdentityDeps {
  const client = dynamoDocumentClient();
  const tableName = requireEnv(ENTITIES_TABLE_ENV);
  if (cached?.client !== client || cached.tableName !== tableName) {
    const store = new DynamoIdentityStore({ client, tableName });
    cached = {
      client,
      tableName,
      store: withLookupCache(store, { ttlInMs: lookupCacheTtlInMs(), nowInMs: Date.now }),
    };
  }
  return { store: cached.store, now: () => new Date() };
}
