/** Wiring of notifications: subscriptions and deliveries, the queue, the cipher of secrets, the guarded client. */
import { DynamoExecutionLogStore } from '../../adapters/dynamodb/execution-log-store';
import { DynamoNotificationStore } from '../../adapters/dynamodb/notification-store';
import { createGuardedHttpClient } from '../../adapters/http/guarded-client';
import { SqsNotificationQueue } from '../../adapters/sqs/notification-queue';
import { withChatOutbox } from '../../adapters/chat/outbox-chat-sender';
import { createSlackChatSender } from '../../adapters/chat/slack-sender';
import type { HttpClient } from '../../core/net/http';
import type { ChatSender } from '../../core/notifications/types';
import { emailSender } from './email';
import { workflowDeps } from './workflows';
import { limitOwnerOf, limitsBlock } from '../../core/limits/service';
import { limitsDeps } from './limits';
import type { InactivityDeps, NotificationDeps } from '../../core/notifications/service';
import { environmentCipher } from './environment';
import { identityDeps, lookupCacheTtlInMs } from './identity';
import { blobStore } from './storage';
import { dynamoDocumentClient } from '../../adapters/aws/clients';
import {
  cachedSubscriptions,
  forgettingSubscriptionWrites,
  matchingFromCache,
  type SubscriptionCache,
} from '../../core/notifications/subscription-cache';

let subscriptions: { client: unknown; cache: SubscriptionCache } | undefined;

/**
 * The subscriptions the worker matches events against, one cache per process (made again when the
 * local stack moves), kept for `LOOKUP_CACHE_TTL_MS` like the run path's other lookups (./identity.ts).
 */
function subscriptionCache(): SubscriptionCache {
  const client = dynamoDocumentClient();
  if (subscriptions?.client !== client) {
    subscriptions = {
      client,
      cache: cachedSubscriptions(DynamoNotificationStore.fromEnv(), {
        ttlInMs: lookupCacheTtlInMs(),
        nowInMs: Date.now,
      }),
    };
  }
  return subscriptions.cache;
}

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

export function notificationWorkerDeps() {
  // Deliveries never follow redirects (a 3xx is final), and honour OUTBOUND_ALLOWLIST.
  const http = createGuardedHttpClient({ maxRedirects: 0 });
  return {
    notifications: matchingFromCache(
      DynamoNotificationStore.fromEnv({ blobStore: blobStore() }),
      subscriptionCache(),
    ),
    logs: DynamoExecutionLogStore.fromEnv({ blobStore: blobStore() }),
    workflows: { getWorkflow: (id: string) => workflowDeps().workflows.getWorkflow(id) },
    publicBaseUrl: process.env.PUBLIC_BASE_URL,
    limitsOf: async (userId: string) => {
      const user = await identityDeps().store.getUser(userId);
      if (!user) return undefined;
      const deps = limitsDeps();
      return limitsBlock(deps, await limitOwnerOf(deps, user));
    },
    cipher: environmentCipher,
    queue: SqsNotificationQueue.fromEnv(),
    http,
    chat: chatSender(http),
    email: emailSender(),
    now: () => new Date(),
  };
}

/** Slack through the guard; locally, messages whose endpoint cannot be reached go to the outbox. */
function chatSender(http: HttpClient): ChatSender {
  const slack = createSlackChatSender({ http, slackApiUrl: process.env.SLACK_API_URL });
  const outbox = process.env.NOTIFICATION_OUTBOX_DIR;
  return outbox ? withChatOutbox(slack, outbox) : slack;
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
