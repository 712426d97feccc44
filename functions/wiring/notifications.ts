/**
 * Wiring of notifications: subscriptions and deliveries, the queue, the cipher of secrets. The
 * worker's (deliveries through the guarded client, chat and e-mail) is in ./notification-worker.ts.
 */
import { DynamoNotificationStore } from '../../adapters/dynamodb/notification-store';
import { SqsNotificationQueue } from '../../adapters/sqs/notification-queue';
import { workflowDeps } from './workflows';
import type { InactivityDeps, NotificationDeps } from '../../core/notifications/service';
import { environmentCipher } from './environment';
import { identityDeps, lookupCacheTtlInMs } from './identity';
import { keptPerClient } from './per-client';
import { blobStore } from './storage';
import {
  cachedSubscriptions,
  forgettingSubscriptionWrites,
  type SubscriptionCache,
} from '../../core/notifications/subscription-cache';

/**
 * The subscriptions the worker matches events against, one cache per process, kept for
 * `LOOKUP_CACHE_TTL_MS` like the run path's other lookups (./identity.ts). The worker
 * (./notification-worker.ts) reads through it; the routes' writes here drop its entries.
 */
export const subscriptionCache = keptPerClient(
  (): SubscriptionCache =>
    cachedSubscriptions(DynamoNotificationStore.fromEnv(), {
      ttlInMs: lookupCacheTtlInMs(),
      nowInMs: Date.now,
    }),
);

export function notificationDeps(): NotificationDeps {
  return {
    identity: identityDeps().store,
    // Writes through here drop the worker's copy of the workspace's subscriptions at once.
    notifications: forgettingSubscriptionWrites(
      DynamoNotificationStore.fromEnv({ blobStore: blobStore() }),
      subscriptionCache(),
    ),
    cipher: environmentCipher,
    queue: SqsNotificationQueue.fromEnv(),
    now: () => new Date(),
  };
}

export function inactivityDeps(): InactivityDeps {
  const workflows = workflowDeps().workflows;
  return {
    notifications: DynamoNotificationStore.fromEnv({ blobStore: blobStore() }),
    queue: SqsNotificationQueue.fromEnv(),
    publicBaseUrl: process.env.PUBLIC_BASE_URL,
    workflows: {
      getWorkflow: (id) => workflows.getWorkflow(id),
      listWorkflows: (workspaceId) => workflows.listWorkflows(workspaceId),
    },
    now: () => new Date(),
  };
}
