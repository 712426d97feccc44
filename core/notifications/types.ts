/** Notifications: subscriptions of a workspace to run completions, the events, and their deliveries. */
import type { CostSummary, TraceSpan } from '../engine/types';
import type { FileObject } from '../files/types';
import type { Trigger } from '../triggers';

/** The levels of a log entry, which a subscription's levelFilter chooses among. */
export const logLevels = ['info', 'error'] as const;
import type { ChatMessage, EmailMessage } from './messages';
import type { AlertState } from './alerts';
import type { AttemptOutcome } from './retry';

export const notificationChannels = ['webhook', 'email', 'chat'] as const;
export type NotificationChannel = (typeof notificationChannels)[number];

export const alertRules = [
  'consecutive_failures',
  'failure_rate',
  'latency_threshold',
  'latency_spike',
  'cost_threshold',
  'no_activity',
  'error_count',
] as const;
export type AlertRuleName = (typeof alertRules)[number];

export interface AlertRule {
  rule: AlertRuleName;
  /** Default per rule (core/notifications/alerts.ts). */
  threshold?: number;
  windowHours?: number;
}

/** A subscription as stored. Secrets only as ciphertext (the environment's envelope). */
export interface NotificationRecord {
  id: string;
  workspaceId: string;
  channel: NotificationChannel;
  /** Empty with `allWorkflows`: every workflow of the workspace, those created later too. */
  workflowIds: string[];
  allWorkflows: boolean;
  levelFilter: Array<(typeof logLevels)[number]>;
  triggerFilter: Trigger[];
  includeFinalOutput: boolean;
  includeTraceSpans: boolean;
  includeRateLimits: boolean;
  includeUsageData: boolean;
  webhook?: { url: string; secretCiphertext?: string };
  email?: { recipients: string[] };
  chat?: { webhookUrl: string } | { channel: string; tokenCiphertext: string };
  alert?: AlertRule;
  active: boolean;
  createdAt: string;
  updatedAt: string;
}

/** What a run's end tells notifications: the log entry's facts, and what the include flags may add. */
export interface CompletionEvent {
  /** One per run: `evt_<executionId>`. */
  id: string;
  type: 'workflow.execution.completed';
  /** Unix milliseconds. */
  timestamp: number;
  workspaceId: string;
  workflowId: string;
  executionId: string;
  logId: string;
  /** Who started the run: whose rate limits and usage `includeRateLimits` and `includeUsageData` show. */
  userId?: string;
  level: 'info' | 'error';
  trigger: Trigger;
  startedAt: string;
  endedAt: string;
  totalDurationMs: number;
  cost: CostSummary;
  files: FileObject[] | null;
  error?: string;
}

/** What the include flags add, read from the log entry only when a subscription asks for it. */
export interface EventExtras {
  finalOutput?: unknown;
  traceSpans?: TraceSpan[];
  rateLimits?: unknown;
  usage?: unknown;
}

export const deliveryStatuses = ['pending', 'in_progress', 'success', 'failed'] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];

export interface DeliveryAttempt {
  at: string;
  responseStatus?: number;
  error?: string;
}

export interface DeliveryRecord {
  id: string;
  notificationId: string;
  workspaceId: string;
  eventId: string;
  /** What is sent, fixed when the delivery is recorded, so every attempt sends the same bytes. */
  eventType: string;
  body: string;
  status: DeliveryStatus;
  attempts: number;
  responseStatus?: number;
  /** The start of the last response body, for the history. */
  responseExcerpt?: string;
  error?: string;
  history: DeliveryAttempt[];
  createdAt: string;
  nextAttemptAt?: string;
  completedAt?: string;
}

/** Port: subscriptions (in the workspace's entities) and deliveries. */
export interface NotificationStore {
  putNotification(record: NotificationRecord): Promise<void>;
  getNotification(workspaceId: string, id: string): Promise<NotificationRecord | undefined>;
  listNotifications(workspaceId: string): Promise<NotificationRecord[]>;
  deleteNotification(workspaceId: string, id: string): Promise<boolean>;
  /** Records a delivery unless one with its id exists; answers whether it was new. */
  createDelivery(delivery: DeliveryRecord): Promise<boolean>;
  getDelivery(key: DeliveryMessage): Promise<DeliveryRecord | undefined>;
  putDelivery(delivery: DeliveryRecord): Promise<void>;
  /** Newest first. */
  listDeliveries(notificationId: string, limit: number): Promise<DeliveryRecord[]>;
  /** Subscriptions with a `no_activity` rule, in every workspace: what the scheduled check reads. */
  listNoActivitySubscriptions(): Promise<Array<{ workspaceId: string; id: string }>>;
  /** The alert state of a subscription for one workflow, with the version to write it back at. */
  getAlertState(
    notificationId: string,
    workflowId: string,
  ): Promise<{ state: AlertStateRecord; version: number } | undefined>;
  /** Writes the state if it is still at `expectedVersion` (0: not there yet); answers whether it did. */
  putAlertState(
    notificationId: string,
    workflowId: string,
    state: AlertStateRecord,
    expectedVersion: number,
  ): Promise<boolean>;
}

/** An alert's state as kept: the rule's state plus the events it has counted, so none counts twice. */
export interface AlertStateRecord extends AlertState {
  seenEventIds: string[];
}

/** Port: the queue between Finalize, the dispatcher and the deliverer. */
export interface NotificationQueue {
  publishEvent(event: CompletionEvent): Promise<void>;
  enqueueDelivery(message: DeliveryMessage): Promise<void>;
}

/** The two kinds of message on the notifications queue. */
export type NotificationMessage =
  | { kind: 'event'; event: CompletionEvent }
  | ({ kind: 'delivery' } & DeliveryMessage);

export interface DeliveryMessage {
  notificationId: string;
  deliveryId: string;
  /** The delivery's `createdAt`: with the ids, its key. */
  createdAt: string;
}

/** What one attempt on any channel came to. */
export interface SendResult {
  outcome: AttemptOutcome;
  /** The start of the receiver's answer, for the history. */
  excerpt?: string;
  error?: string;
}

/** Where a chat message goes: a Slack incoming webhook, or `chat.postMessage` with a bot token. */
export type ChatTarget = { webhookUrl: string } | { channel: string; token: string };

/** Port: sends Slack messages. */
export interface ChatSender {
  send(target: ChatTarget, message: ChatMessage): Promise<SendResult>;
}

/** Port: sends e-mail (SES in AWS; SMTP or a local outbox). */
export interface EmailSender {
  send(message: EmailMessage): Promise<SendResult>;
}
