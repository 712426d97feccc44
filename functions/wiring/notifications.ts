/**
 * Wiring of notifications: subscriptions and deliveries, the queue, the cipher of secrets. The
 * worker's (deliveries through the guarded client, chat and e-mail) is in ./notification-worker.ts.
 */
import { DynamoNotificationStore } from '../../adapters/dynamodb/notification-store';
import { SqsNotificationQueue } from '../../adapters/sqs/notification-queue';
import { workflowDeps } from './workflows';
import type { InactivityDeps } from '../../core/notifications/dispatch';
import type { NotificationDeps } from '../../core/notifications/subscriptions';
import { environmentCipher } from './environment';
import { identityDeps } from './identity';
import { blobStore } from './storage';
import { forgettingSubscriptionWrites } from '../../core/notifications/subscription-cache';
import { subscriptionCache } from './subscriptions';
import { setting } from '../settings';

export function notificationDeps(): NotificationDeps {
  return {
    identity: identityDeps().store,
    // Writes through here drop the process's copy of the workspace's subscriptions at once.
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
    publicBaseUrl: setting('PUBLIC_BASE_URL'),
    workflows: {
      getWorkflow: (id) => workflows.getWorkflow(id),
      listWorkflows: (workspaceId) => workflows.listWorkflows(workspaceId),
    },
    now: () => new Date(),
  };
}
