/** Wiring of notifications: subscriptions and deliveries, the queue, the cipher of secrets, the guarded client. */
import { DynamoExecutionLogStore } from '../../adapters/dynamodb/execution-log-store';
import { DynamoNotificationStore } from '../../adapters/dynamodb/notification-store';
import { createGuardedHttpClient } from '../../adapters/http/guarded-client';
import { SqsNotificationQueue } from '../../adapters/sqs/notification-queue';
import { withChatOutbox } from '../../adapters/chat/outbox-chat-sender';
import { createSlackChatSender } from '../../adapters/chat/slack-sender';
import { emailFromEnv } from '../../adapters/email/mime';
import { createOutboxEmailSender } from '../../adapters/email/outbox-sender';
import { createSesEmailSender } from '../../adapters/email/ses-sender';
import { createSmtpEmailSender } from '../../adapters/email/smtp-sender';
import type { HttpClient } from '../../core/net/http';
import type { ChatSender, EmailSender } from '../../core/notifications/types';
import { workflowDeps } from './workflows';
import { limitOwnerOf, limitsBlock } from '../../core/limits/service';
import { limitsDeps } from './limits';
import type { InactivityDeps, NotificationDeps } from '../../core/notifications/service';
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
  // Deliveries never follow redirects (a 3xx is final), and honour OUTBOUND_ALLOWLIST.
  const http = createGuardedHttpClient({ maxRedirects: 0 });
  return {
    notifications: DynamoNotificationStore.fromEnv({ blobStore: blobStore() }),
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

/** `SMTP_URL` when set; else locally the outbox; else (in AWS) SES. */
function emailSender(): EmailSender {
  const from = emailFromEnv();
  if (process.env.SMTP_URL) return createSmtpEmailSender({ smtpUrl: process.env.SMTP_URL, from });
  const outbox = process.env.NOTIFICATION_OUTBOX_DIR;
  if (outbox) return createOutboxEmailSender({ outboxDir: outbox, from });
  return createSesEmailSender({ from });
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
