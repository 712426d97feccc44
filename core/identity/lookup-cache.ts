/**
 * What every key-authenticated request looks up about its caller, its API key and its membership
 * of the workflow's workspace, kept in the process for a bounded time, as API Gateway's authorizer
 * cache keeps an authorizer's answer: a warm function then reads neither on the hot path.
 *
 * The bound: a change made through this process (a key revoked, a member removed or given other
 * permissions) drops the entry at once; one made through another process (another Lambda instance)
 * is seen within `ttlInMs`. Lookups that find nothing are not kept, so a new key or member works at
 * once, and a wrong key costs the read it always did.
 */
import { BoundedMap } from '../bounded-map';
import { ExpiringMap, type ExpiryOptions, forgettingAround } from '../expiring-map';
import { overridden } from '../overridden';
import type { ApiKeyRecord, IdentityStore, WorkspaceMembership } from './types';

export type LookupCacheOptions = ExpiryOptions;

/** `store`, with its key and membership lookups kept for `ttlInMs`; every other call goes straight through. */
export function withLookupCache(store: IdentityStore, options: LookupCacheOptions): IdentityStore {
  const keys = new ExpiringMap<ApiKeyRecord>(options);
  const memberships = new ExpiringMap<WorkspaceMembership>(options);
  /** Hashes of the keys kept, by key id: a revocation names the key by its id. */
  const hashesById = new BoundedMap<string, string>(options.maxEntries ?? 10_000);
  const membershipKey = (workspaceId: string, userId: string) => `${workspaceId}#${userId}`;
  const forgetMembership = (key: string) => memberships.delete(key);
  const overrides: Partial<IdentityStore> = {
    async findApiKeyByHash(hash) {
      const record = await keys.get(hash, () => store.findApiKeyByHash(hash));
      if (record) hashesById.set(record.id, hash);
      return record;
    },
    async deleteApiKey(userId, keyId) {
      const hash = hashesById.get(keyId);
      if (hash !== undefined) keys.delete(hash);
      const deleted = await store.deleteApiKey(userId, keyId);
      if (deleted) keys.delete(deleted.hash);
      return deleted;
    },
    getWorkspaceMembership(workspaceId, userId) {
      return memberships.get(membershipKey(workspaceId, userId), () =>
        store.getWorkspaceMembership(workspaceId, userId),
      );
    },
    putWorkspaceMembership(membership) {
      return forgettingAround(
        forgetMembership,
        membershipKey(membership.workspaceId, membership.userId),
        () => store.putWorkspaceMembership(membership),
      );
    },
    deleteWorkspaceMembership(workspaceId, userId) {
      return forgettingAround(forgetMembership, membershipKey(workspaceId, userId), () =>
        store.deleteWorkspaceMembership(workspaceId, userId),
      );
    },
  };
  return overridden(store, overrides);
}
