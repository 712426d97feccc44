/**
 * A workspace's subscriptions as the notifications worker reads them to match every completion
 * event, kept in the process for a bounded time like the other lookups of the run path
 * (core/identity/lookup-cache.ts, core/workflows/record-cache.ts). Most workspaces have none, and
 * that empty answer is kept too: a run then costs the worker no read at all.
 *
 * The bound: a subscription created, changed or deleted through this process is matched (or no
 * longer matched) from the next event on; one changed through another process (another Lambda
 * instance) within `ttlInMs`. Management routes (create's per-channel limit, list, get) always read
 * the store; only event matching uses the kept copy.
 */
import { ExpiringMap, type ExpiryOptions, forgettingAround } from '../expiring-map';
import { overridden } from '../overridden';
import type { NotificationRecord, NotificationStore } from './types';

export interface SubscriptionCache {
  listNotifications(workspaceId: string): Promise<NotificationRecord[]>;
  forget(workspaceId: string): void;
}

export function cachedSubscriptions(
  store: Pick<NotificationStore, 'listNotifications'>,
  options: ExpiryOptions,
): SubscriptionCache {
  const subscriptions = new ExpiringMap<NotificationRecord[]>(options);
  return {
    listNotifications: async (workspaceId) =>
      (await subscriptions.get(workspaceId, () => store.listNotifications(workspaceId))) ?? [],
    forget: (workspaceId) => subscriptions.delete(workspaceId),
  };
}

/** `store`, with event matching's listing answered by `cache`. */
export function matchingFromCache(store: NotificationStore, cache: SubscriptionCache): NotificationStore {
  return overridden(store, { listNotifications: (workspaceId) => cache.listNotifications(workspaceId) });
}

/** `store`, telling `cache` of every subscription it writes or deletes. */
export function forgettingSubscriptionWrites(
  store: NotificationStore,
  cache: Pick<SubscriptionCache, 'forget'>,
): NotificationStore {
  const forget = (workspaceId: string) => cache.forget(workspaceId);
  const overrides: Partial<NotificationStore> = {
    putNotification: (record) =>
      forgettingAround(forget, record.workspaceId, () => store.putNotification(record)),
    deleteNotification: (workspaceId, id) =>
      forgettingAround(forget, workspaceId, () => store.deleteNotification(workspaceId, id)),
  };
  return overridden(store, overrides);
}
