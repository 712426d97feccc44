/** Wiring of notifications: subscriptions and deliveries, the queue, the cipher of secrets, the guarded client. */
import { DynamoExecutionLogStore } from '../../adapters/dynamodb/execution-log-store';
import { DynamoNotificationStore } from '../../adapters/dynamodb/notification-store';
import { createGuardedHttpClient } from '../../adapters/http/guarded-client';
import { SqsNotificationQueue } from '../../adapters/sqs/notification-queue';
import type { NotificationDeps } from '../../core/notifications/service';
import { environmentCipher } from './environment';
import { identityDeps } from './identity';
import { blobStore } from './storage';

export function notificationDeps(): NotificationDeps {
  return {
    identity: identityDeps().store,
    notifications: DynamoNotificationStore.fromEnv({ blobStore: blobStore() }),
    cipher: environmentCipher,
    queue: SqsNotificationQueue.fromEnv(),
    now: () => new Date(),
  };
}

export function notificationWorkerDeps() {
  return {
    notifications: DynamoNotificationStore.fromEnv({ blobStore: blobStore() }),
    logs: DynamoExecutionLogStore.fromEnv({ blobStore: blobStore() }),
    cipher: environmentCipher,
    queue: SqsNotificationQueue.fromEnv(),
    // Deliveries never follow redirects (a 3xx is final), and honour OUTBOUND_ALLOWLIST.
    http: createGuardedHttpClient({ maxRedirects: 0 }),
    now: () => new Date(),
  };
}
