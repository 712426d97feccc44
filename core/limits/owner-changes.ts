/**
 * Owners whose plan, usage limit or organization changed through this process. What the process
 * keeps of an owner's limits (token leases, ./token-leases.ts) is dropped at once, as the lookup
 * cache drops a key revoked through it; a change made through another process is seen within the
 * lease's lifetime.
 */
type OwnerListener = (ownerKey: string) => void;

const listeners = new Set<OwnerListener>();

/** Tells this process's listeners that `ownerKey` (`user#<id>`, `org#<id>`) changed. */
export function ownerChanged(ownerKey: string): void {
  for (const listener of listeners) listener(ownerKey);
}

/** Calls `listener` with every owner changed from now on, until the returned function is called. */
export function onOwnerChanged(listener: OwnerListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
