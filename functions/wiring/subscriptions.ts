/**
 * The subscriptions that completion events are matched against, one cache per process, kept for
 * `LOOKUP_CACHE_TTL_MS` like the run path's other lookups (./identity.ts). Finalize reads through
 * it to publish only the events a subscription matches (core/notifications/publishing.ts), the
 * worker to dispatch them (./notification-worker.ts); the routes' writes (./notifications.ts) drop
 * its entries.
 */
import { DynamoNotificationStore } from '../../adapters/dynamodb/notification-store';
import { cachedSubscriptions, type SubscriptionCache } from '../../core/notifications/subscription-cache';
import { lookupCacheTtlInMs } from './identity';
import { keptPerClient } from './per-client';

export const subscriptionCache = keptPerClient(
  (): SubscriptionCache =>
    cachedSubscriptions(DynamoNotificationStore.fromEnv(), {
      ttlInMs: lookupCacheTtlInMs(),
      nowInMs: Date.now,
    }),
);
