/** Wiring of the notifications worker: deliveries through the guarded client, chat and e-mail. */
import { DynamoNotificationStore } from '../../adapters/dynamodb/notification-store';
import { SqsNotificationQueue } from '../../adapters/sqs/notification-queue';
import { withChatOutbox } from '../../adapters/chat/outbox-chat-sender';
import { createSlackChatSender } from '../../adapters/chat/slack-sender';
import { limitOwnerOf, limitsBlock } from '../../core/limits/service';
import type { HttpClient } from '../../core/net/http';
import { matchingFromCache } from '../../core/notifications/subscription-cache';
import type { ChatSender } from '../../core/notifications/types';
import { emailSender } from './email';
import { environmentCipher } from './environment';
import { identityDeps } from './identity';
import { limitsDeps } from './limits';
import { subscriptionCache } from './subscriptions';
import { blobStore } from './storage';
import { workflowDeps } from './workflows';
import { guardedHttpClient } from './outbound';
import { setting } from '../settings';
import { optionalEnv } from '../../adapters/aws/require-env';
import { executionLogStore } from './execution-log';

export function notificationWorkerDeps() {
  // Deliveries never follow redirects (a 3xx is final), and honour OUTBOUND_ALLOWLIST.
  const http = guardedHttpClient({ maxRedirects: 0 });
  return {
    notifications: matchingFromCache(
      DynamoNotificationStore.fromEnv({ blobStore: blobStore() }),
      subscriptionCache(),
    ),
    logs: executionLogStore(),
    workflows: { getWorkflow: (id: string) => workflowDeps().workflows.getWorkflow(id) },
    publicBaseUrl: setting('PUBLIC_BASE_URL'),
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
  const slack = createSlackChatSender({ http, slackApiUrl: setting('SLACK_API_URL') });
  const outbox = optionalEnv('NOTIFICATION_OUTBOX_DIR');
  return outbox ? withChatOutbox(slack, outbox) : slack;
}
