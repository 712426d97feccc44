import { requireEnv } from '../../adapters/aws/clients';
import { DynamoIdentityStore } from '../../adapters/dynamodb/identity-store';
import { JoseIdTokenVerifier } from '../../adapters/oidc/id-token-verifier';
import type { IdTokenVerifier } from '../../core/identity/id-tokens';
import { ENTITIES_TABLE_ENV } from '../../adapters/dynamodb/shared';
import type { IdentityDeps } from '../../core/identity/service';
import { withLookupCache } from '../../core/identity/lookup-cache';
import { withOwnerChanges } from '../../core/limits/owner-changes';
import type { IdentityStore } from '../../core/identity/types';
import { keptPerClient } from './per-client';

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

let verifier: { key: string; verifier: IdTokenVerifier } | undefined;

/**
 * The verifier of the provider named by OIDC_ISSUER and OIDC_AUDIENCE, one per process so that its
 * discovery document and keys are fetched once; made anew only when the settings change (tests).
 */
export function idTokenVerifier(env: Record<string, string | undefined> = process.env): IdTokenVerifier {
  const issuer = env.OIDC_ISSUER?.trim();
  const audience = env.OIDC_AUDIENCE?.trim();
  if (!issuer || !audience) {
    throw new Error('SSO_ENABLED is on but OIDC_ISSUER or OIDC_AUDIENCE is not set');
  }
  const key = `${issuer}\n${audience}`;
  if (verifier?.key !== key) verifier = { key, verifier: new JoseIdTokenVerifier({ issuer, audience }) };
  return verifier.verifier;
}
