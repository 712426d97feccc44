/**
 * Owners whose plan, usage limit or organization changed through this process. What the process
 * keeps of an owner's limits (token leases, ./token-leases.ts) is dropped at once, as the lookup
 * cache drops a key revoked through it; a change made through another process is seen within the
 * lease's lifetime.
 */
import type { IdentityStore } from '../identity/types';
import { overridden } from '../overridden';

type OwnerListener = (ownerKey: string) => void;

const listeners = new Set<OwnerListener>();

/** Tells this process's listeners that `ownerKey` (`user#<id>`, `org#<id>`) changed. */
function ownerChanged(ownerKey: string): void {
  for (const listener of listeners) listener(ownerKey);
}

/** Calls `listener` with every owner changed from now on, until the returned function is called. */
export function onOwnerChanged(listener: OwnerListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * `store`, telling the listeners of every owner whose limits its writes change: a user's or an
 * organization's plan and usage limit, and a user joining or leaving an organization.
 */
export function withOwnerChanges(store: IdentityStore): IdentityStore {
  const changing =
    <A extends unknown[], R>(write: (...args: A) => Promise<R>, ownerOf: (...args: A) => string) =>
    async (...args: A): Promise<R> => {
      const result = await write(...args);
      ownerChanged(ownerOf(...args));
      return result;
    };
  return overridden(store, {
    updateUserLimits: changing(store.updateUserLimits.bind(store), (userId) => `user#${userId}`),
    updateOrganizationLimits: changing(store.updateOrganizationLimits.bind(store), (id) => `org#${id}`),
    setUserOrganization: changing(store.setUserOrganization.bind(store), (userId) => `user#${userId}`),
    removeOrganizationMember: changing(
      store.removeOrganizationMember.bind(store),
      (_organizationId, userId) => `user#${userId}`,
    ),
  });
}
