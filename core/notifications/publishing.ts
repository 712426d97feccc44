/**
 * Which completion events go to the notifications queue: those that a subscription of the run's
 * workspace matches, as the notifications worker would match them. Most workspaces have no
 * subscription; their runs then cost no queue message and no worker invocation, and a sync run no
 * longer waits for the send.
 *
 * Finalize reads the subscriptions through the same per-process cache as the worker
 * (./subscription-cache.ts): a subscription created through another instance applies within the
 * same bound, `LOOKUP_CACHE_TTL_MS`, as it did when only the worker looked. When they cannot be
 * read, the event is published all the same and the worker matches it: an event is never dropped
 * for want of knowing.
 */
import { subscriptionMatches } from './matching';
import type { SubscriptionCache } from './subscription-cache';
import type { NotificationQueue } from './types';

export function publishingWhenMatched(
  queue: Pick<NotificationQueue, 'publishEvent'>,
  subscriptions: Pick<SubscriptionCache, 'listNotifications'>,
): Pick<NotificationQueue, 'publishEvent'> {
  return {
    async publishEvent(event) {
      const listed = await subscriptions.listNotifications(event.workspaceId).catch(() => undefined);
      if (!listed || listed.some((subscription) => subscriptionMatches(subscription, event))) {
        await queue.publishEvent(event);
      }
    },
  };
}
