/**
 * Notification use cases: manage a workspace's subscriptions (secrets encrypted, never answered),
 * dispatch a completion event to the subscriptions it matches (one delivery each, recorded once
 * however often the event arrives), and make one attempt of a webhook delivery.
 */
import { createHash } from 'node:crypto';
import type { SecretCipher } from '../environment/types';
import { ConflictError, NotFoundError, ValidationError } from '../errors';
import { requireWorkspaceAccess } from '../identity/access';
import type { Principal } from '../identity/service';
import type { IdentityStore } from '../identity/types';
import { newId } from '../ids';
import type { HttpClient } from '../net/http';
import { OutboundRequestFailedError, OutboundRequestRefusedError } from '../net/errors';
import { subscriptionMatches } from './matching';
import { alertPayload, completionPayload, deliveryHeaders } from './payload';
import { type AlertFiring, checkNoActivity, observeRun, withDefaults } from './alerts';
import { deliveryTimeoutInMs, isRetryable, isSuccess, maxDeliveryAttempts, retryDelayInMs } from './retry';
import type { ExecutionLogStore } from '../runs/log';
import {
  alertChatOf,
  alertEmailOf,
  type ChatMessage,
  chatMessageOf,
  type EmailMessage,
  emailMessageOf,
  type MessageContext,
} from './messages';
import { logLevels } from './types';
import type {
  AlertRule,
  AlertStateRecord,
  ChatSender,
  ChatTarget,
  EmailSender,
  SendResult,
  CompletionEvent,
  DeliveryMessage,
  DeliveryRecord,
  EventExtras,
  NotificationChannel,
  NotificationQueue,
  NotificationRecord,
  NotificationStore,
} from './types';
import { type Trigger, triggers } from '../triggers';

/** Subscriptions a workspace may have on one channel. */
export const maxNotificationsPerChannel = 10;
const maxExcerptChars = 500;

export interface NotificationDeps {
  identity: IdentityStore;
  notifications: NotificationStore;
  cipher: SecretCipher;
  queue: NotificationQueue;
  now: () => Date;
  /** Why deliveries to a webhook URL would be refused (the outbound guard's check), if they would. */
  outboundRefusal?: (url: string) => string | undefined;
}

export interface NotificationInput {
  channel: NotificationChannel;
  workflowIds?: string[];
  allWorkflows?: boolean;
  /** Every level when not given. */
  levelFilter?: Array<'info' | 'error'>;
  /** Every trigger when not given. */
  triggerFilter?: Trigger[];
  includeFinalOutput?: boolean;
  includeTraceSpans?: boolean;
  includeRateLimits?: boolean;
  includeUsageData?: boolean;
  webhook?: { url: string; secret?: string };
  email?: { recipients: string[] };
  chat?: { webhookUrl: string } | { channel: string; token: string };
  alert?: AlertRule;
  active?: boolean;
}

/** A subscription as answered: secrets replaced by whether there is one. */
export interface NotificationView extends Omit<NotificationRecord, 'webhook' | 'chat'> {
  webhook?: { url: string; hasSecret: boolean };
  chat?: { webhookUrl: string } | { channel: string; hasToken: true };
}

export function notificationView(record: NotificationRecord): NotificationView {
  const { webhook, chat, ...rest } = record;
  return {
    ...rest,
    ...(webhook ? { webhook: { url: webhook.url, hasSecret: webhook.secretCiphertext !== undefined } } : {}),
    ...(chat
      ? {
          chat:
            'webhookUrl' in chat
              ? { webhookUrl: chat.webhookUrl }
              : { channel: chat.channel, hasToken: true },
        }
      : {}),
  };
}

const secretContext = (workspaceId: string, notificationId: string) =>
  `notification:${workspaceId}:${notificationId}`;

function requireChannelConfig(deps: NotificationDeps, input: NotificationInput): void {
  const settings = { webhook: input.webhook, email: input.email, chat: input.chat }[input.channel];
  if (!settings)
    throw new ValidationError(`A ${input.channel} subscription needs its ${input.channel} settings`, [
      { path: input.channel, message: `Required for the ${input.channel} channel` },
    ]);
  // A URL the guard refuses would fail at every delivery: say so now, while somebody is looking.
  const refusal =
    input.channel === 'webhook' && input.webhook ? deps.outboundRefusal?.(input.webhook.url) : undefined;
  if (refusal) {
    const message = `${refusal}. Deliveries only go to public addresses, or to hosts that OUTBOUND_ALLOWLIST names`;
    throw new ValidationError(message, [{ path: 'webhook.url', message }]);
  }
  if (!input.allWorkflows && (input.workflowIds ?? []).length === 0)
    throw new ValidationError('Give workflowIds, or allWorkflows: true', [
      { path: 'workflowIds', message: 'Give at least one workflow id, or allWorkflows: true' },
    ]);
}

async function recordOf(
  deps: NotificationDeps,
  base: Pick<NotificationRecord, 'id' | 'workspaceId' | 'createdAt'>,
  input: NotificationInput,
  previous?: NotificationRecord,
): Promise<NotificationRecord> {
  const context = secretContext(base.workspaceId, base.id);
  let webhook: NotificationRecord['webhook'];
  if (input.channel === 'webhook' && input.webhook) {
    const secret = input.webhook.secret;
    // An update that leaves out the secret keeps the one there was for the same URL.
    const kept = previous?.webhook?.url === input.webhook.url ? previous.webhook.secretCiphertext : undefined;
    webhook = {
      url: input.webhook.url,
      ...(secret
        ? { secretCiphertext: await deps.cipher.encrypt(secret, context) }
        : kept
          ? { secretCiphertext: kept }
          : {}),
    };
  }
  return {
    ...base,
    channel: input.channel,
    workflowIds: input.allWorkflows ? [] : [...new Set(input.workflowIds ?? [])],
    allWorkflows: input.allWorkflows === true,
    levelFilter: [...new Set(input.levelFilter ?? logLevels)],
    triggerFilter: [...new Set(input.triggerFilter ?? triggers)],
    includeFinalOutput: input.includeFinalOutput === true,
    includeTraceSpans: input.includeTraceSpans === true,
    includeRateLimits: input.includeRateLimits === true,
    includeUsageData: input.includeUsageData === true,
    ...(webhook ? { webhook } : {}),
    ...(input.channel === 'email' && input.email
      ? { email: { recipients: [...new Set(input.email.recipients)] } }
      : {}),
    ...(input.channel === 'chat' && input.chat
      ? { chat: await chatRecordOf(deps, context, input.chat) }
      : {}),
    ...(input.alert ? { alert: withDefaults(input.alert) } : {}),
    active: input.active ?? true,
    updatedAt: deps.now().toISOString(),
  };
}

async function chatRecordOf(
  deps: NotificationDeps,
  context: string,
  chat: NonNullable<NotificationInput['chat']>,
): Promise<NonNullable<NotificationRecord['chat']>> {
  if ('webhookUrl' in chat) return { webhookUrl: chat.webhookUrl };
  return { channel: chat.channel, tokenCiphertext: await deps.cipher.encrypt(chat.token, context) };
}

export async function createNotification(
  deps: NotificationDeps,
  principal: Principal,
  workspaceId: string,
  input: NotificationInput,
): Promise<NotificationView> {
  await requireWorkspaceAccess(deps.identity, principal.user.id, workspaceId, 'write');
  requireChannelConfig(deps, input);
  const existing = await deps.notifications.listNotifications(workspaceId);
  if (existing.filter((record) => record.channel === input.channel).length >= maxNotificationsPerChannel) {
    throw new ConflictError(
      `A workspace has at most ${maxNotificationsPerChannel} ${input.channel} subscriptions`,
    );
  }
  const record = await recordOf(
    deps,
    { id: newId('ntf'), workspaceId, createdAt: deps.now().toISOString() },
    input,
  );
  await deps.notifications.putNotification(record);
  return notificationView(record);
}

export async function listNotifications(
  deps: NotificationDeps,
  principal: Principal,
  workspaceId: string,
): Promise<NotificationView[]> {
  await requireWorkspaceAccess(deps.identity, principal.user.id, workspaceId, 'read');
  return (await deps.notifications.listNotifications(workspaceId)).map(notificationView);
}

async function loadNotification(
  deps: NotificationDeps,
  principal: Principal,
  workspaceId: string,
  id: string,
  needed: 'read' | 'write',
): Promise<NotificationRecord> {
  const notFound = `Notification ${id} not found`;
  await requireWorkspaceAccess(deps.identity, principal.user.id, workspaceId, needed, notFound);
  const record = await deps.notifications.getNotification(workspaceId, id);
  if (!record) throw new NotFoundError(notFound);
  return record;
}

export async function getNotification(
  deps: NotificationDeps,
  principal: Principal,
  workspaceId: string,
  id: string,
) {
  return notificationView(await loadNotification(deps, principal, workspaceId, id, 'read'));
}

export async function updateNotification(
  deps: NotificationDeps,
  principal: Principal,
  workspaceId: string,
  id: string,
  input: NotificationInput,
): Promise<NotificationView> {
  const previous = await loadNotification(deps, principal, workspaceId, id, 'write');
  requireChannelConfig(deps, input);
  if (input.channel !== previous.channel)
    throw new ValidationError('The channel of a subscription cannot change', [
      { path: 'channel', message: `Must stay ${previous.channel}` },
    ]);
  const record = await recordOf(deps, previous, input, previous);
  await deps.notifications.putNotification(record);
  return notificationView(record);
}

export async function deleteNotification(
  deps: NotificationDeps,
  principal: Principal,
  workspaceId: string,
  id: string,
) {
  await loadNotification(deps, principal, workspaceId, id, 'write');
  await deps.notifications.deleteNotification(workspaceId, id);
}

export async function listDeliveries(
  deps: NotificationDeps,
  principal: Principal,
  workspaceId: string,
  id: string,
) {
  await loadNotification(deps, principal, workspaceId, id, 'read');
  return (await deps.notifications.listDeliveries(id, 100)).map(deliveryView);
}

export function deliveryView(delivery: DeliveryRecord) {
  return {
    id: delivery.id,
    eventId: delivery.eventId,
    status: delivery.status,
    attempts: delivery.attempts,
    ...(delivery.responseStatus !== undefined ? { responseStatus: delivery.responseStatus } : {}),
    ...(delivery.responseExcerpt !== undefined ? { responseExcerpt: delivery.responseExcerpt } : {}),
    ...(delivery.error !== undefined ? { error: delivery.error } : {}),
    history: delivery.history,
    createdAt: delivery.createdAt,
    ...(delivery.nextAttemptAt ? { nextAttemptAt: delivery.nextAttemptAt } : {}),
    ...(delivery.completedAt ? { completedAt: delivery.completedAt } : {}),
  };
}

/** The same delivery id however often the event arrives: an event delivers once to a subscription. */
export function deliveryIdOf(eventId: string, notificationId: string): string {
  return `dlv_${createHash('sha256').update(`${eventId}|${notificationId}`).digest('hex').slice(0, 32)}`;
}

/** What a delivery sends, fixed when it is recorded so every attempt sends the same. */
function bodyOf(
  event: CompletionEvent,
  subscription: NotificationRecord,
  extras: EventExtras,
  context: MessageContext,
): string {
  if (subscription.channel === 'email')
    return JSON.stringify(emailMessageOf(event, subscription.email?.recipients ?? [], context));
  if (subscription.channel === 'chat') {
    const channel =
      subscription.chat && 'channel' in subscription.chat ? subscription.chat.channel : undefined;
    return JSON.stringify(chatMessageOf(event, context, channel));
  }
  return JSON.stringify(completionPayload(event, subscription, extras));
}

function newDelivery(
  event: CompletionEvent,
  subscription: NotificationRecord,
  extras: EventExtras = {},
  context: MessageContext = { workflowName: event.workflowId, logUrl: `/api/v1/logs/${event.logId}` },
): DeliveryRecord {
  return {
    id: deliveryIdOf(event.id, subscription.id),
    notificationId: subscription.id,
    workspaceId: subscription.workspaceId,
    eventId: event.id,
    eventType: event.type,
    body: bodyOf(event, subscription, extras, context),
    status: 'pending',
    attempts: 0,
    history: [],
    // The event's time, not now: a redelivered event then makes the very same record.
    createdAt: new Date(event.timestamp).toISOString(),
  };
}

/** Records and queues one delivery per matching subscription; answers how many were new. */
export interface DispatchDeps extends Pick<NotificationDeps, 'notifications' | 'queue'> {
  logs: Pick<ExecutionLogStore, 'getLogEntry'>;
  /** The workflow's name, for e-mail and chat messages. */
  workflows?: { getWorkflow(id: string): Promise<{ name: string } | undefined> };
  /** `PUBLIC_BASE_URL`: makes the log link of e-mail and chat messages absolute. */
  publicBaseUrl?: string;
  /** The limits block of a user now, for `includeRateLimits` and `includeUsageData`. */
  limitsOf?: (userId: string) => Promise<{ workflowExecutionRateLimit: unknown; usage: unknown } | undefined>;
}

export async function dispatchEvent(deps: DispatchDeps, event: CompletionEvent): Promise<number> {
  const subscriptions = (await deps.notifications.listNotifications(event.workspaceId)).filter(
    (subscription) => subscriptionMatches(subscription, event),
  );
  // The large parts travel in the log entry, not in the queue message; read only when asked for.
  const needsData = subscriptions.some(
    (subscription) => subscription.includeFinalOutput || subscription.includeTraceSpans,
  );
  const entry = needsData ? await deps.logs.getLogEntry(event.logId) : undefined;
  const needsLimits = subscriptions.some(
    (subscription) => subscription.includeRateLimits || subscription.includeUsageData,
  );
  const limits = needsLimits && event.userId ? await deps.limitsOf?.(event.userId) : undefined;
  const extras: EventExtras = {
    ...(entry
      ? { finalOutput: entry.executionData.finalOutput, traceSpans: entry.executionData.traceSpans }
      : {}),
    ...(limits ? { rateLimits: limits.workflowExecutionRateLimit, usage: limits.usage } : {}),
  };
  const needsName = subscriptions.some(
    (subscription) => subscription.channel !== 'webhook' || subscription.alert,
  );
  const workflow = needsName ? await deps.workflows?.getWorkflow(event.workflowId) : undefined;
  const context: MessageContext = {
    workflowName: workflow?.name ?? event.workflowId,
    logUrl: `${deps.publicBaseUrl?.replace(/\/$/, '') ?? ''}/api/v1/logs/${event.logId}`,
  };
  let created = 0;
  for (const subscription of subscriptions) {
    const delivery = subscription.alert
      ? await alertDeliveryOf(deps, subscription, event, context)
      : newDelivery(event, subscription, extras, context);
    if (!delivery) continue;
    if (await deps.notifications.createDelivery(delivery)) created += 1;
    // Queued even when it existed: an earlier dispatch may have stopped between the two. A
    // delivery that is already finished ignores the message.
    await deps.queue.enqueueDelivery({
      notificationId: subscription.id,
      deliveryId: delivery.id,
      createdAt: delivery.createdAt,
    });
  }
  return created;
}

/**
 * Applies a run to the subscription's alert state (written back only if nobody changed it
 * meanwhile; else read again and re-applied) and answers the delivery of the alert when it fires.
 * A run already counted (a redelivered event) changes nothing.
 */
async function alertDeliveryOf(
  deps: DispatchDeps,
  subscription: NotificationRecord,
  event: CompletionEvent,
  context: MessageContext,
): Promise<DeliveryRecord | undefined> {
  const alert = subscription.alert as AlertRule;
  for (let attempt = 0; attempt < 10; attempt++) {
    const stored = await deps.notifications.getAlertState(subscription.id, event.workflowId);
    if (stored?.state.seenEventIds.includes(event.id)) return undefined;
    const { state, fired } = observeRun(stored?.state, alert, {
      at: Date.parse(event.endedAt),
      failed: event.level === 'error',
      durationMs: event.totalDurationMs,
      costUsd: event.cost.total,
    });
    const record: AlertStateRecord = {
      ...state,
      seenEventIds: [...(stored?.state.seenEventIds ?? []), event.id].slice(-50),
    };
    const delivery = fired ? alertDelivery(subscription, fired, event.workflowId, context, event) : undefined;
    // The delivery first: a crash before the state is written re-fires the same delivery id.
    if (delivery) await deps.notifications.createDelivery(delivery);
    if (
      await deps.notifications.putAlertState(subscription.id, event.workflowId, record, stored?.version ?? 0)
    )
      return delivery;
  }
  throw new Error(
    `The alert state of ${subscription.id} for ${event.workflowId} kept changing; the event will be handled again`,
  );
}

function alertDelivery(
  subscription: NotificationRecord,
  fired: AlertFiring,
  workflowId: string,
  context: MessageContext,
  event?: CompletionEvent,
  firedAt?: number,
): DeliveryRecord {
  const timestamp = event?.timestamp ?? firedAt ?? Date.now();
  const id = event
    ? `alert_${event.id}`
    : `alert_${subscription.id}_${workflowId}_${fired.rule}_${timestamp}`;
  const channel = subscription.chat && 'channel' in subscription.chat ? subscription.chat.channel : undefined;
  const messageContext = { ...context, ...(event ? { executionId: event.executionId } : {}) };
  const body =
    subscription.channel === 'email'
      ? JSON.stringify(alertEmailOf(fired, subscription.email?.recipients ?? [], messageContext))
      : subscription.channel === 'chat'
        ? JSON.stringify(alertChatOf(fired, messageContext, channel))
        : JSON.stringify(
            alertPayload({
              id,
              timestampInMs: timestamp,
              workflowId,
              workflowName: context.workflowName,
              alert: fired,
              ...(event ? { execution: { event, subscription } } : {}),
            }),
          );
  return {
    id: deliveryIdOf(id, subscription.id),
    notificationId: subscription.id,
    workspaceId: subscription.workspaceId,
    eventId: id,
    eventType: 'workflow.alert',
    body,
    status: 'pending',
    attempts: 0,
    history: [],
    createdAt: new Date(timestamp).toISOString(),
  };
}

export interface InactivityDeps extends Pick<DispatchDeps, 'notifications' | 'queue' | 'publicBaseUrl'> {
  workflows: {
    getWorkflow(id: string): Promise<{ name: string } | undefined>;
    listWorkflows(workspaceId: string): Promise<Array<{ id: string; name: string }>>;
  };
  now: () => Date;
}

/**
 * The scheduled `no_activity` check: for each such subscription and each workflow in its scope, an
 * alert when nothing ran for its hours (counted from the last run, or from when the subscription
 * was made). Answers how many alerts it queued.
 */
export async function checkInactivity(deps: InactivityDeps): Promise<number> {
  const now = deps.now().getTime();
  let fired = 0;
  for (const { workspaceId, id } of await deps.notifications.listNoActivitySubscriptions()) {
    const subscription = await deps.notifications.getNotification(workspaceId, id);
    if (!subscription?.alert || !subscription.active) continue;
    const workflows = subscription.allWorkflows
      ? await deps.workflows.listWorkflows(workspaceId)
      : (
          await Promise.all(
            subscription.workflowIds.map(async (workflowId) => {
              const workflow = await deps.workflows.getWorkflow(workflowId);
              return workflow ? { id: workflowId, name: workflow.name } : undefined;
            }),
          )
        ).filter((workflow): workflow is { id: string; name: string } => workflow !== undefined);
    for (const workflow of workflows) {
      const stored = await deps.notifications.getAlertState(subscription.id, workflow.id);
      const check = checkNoActivity(
        stored?.state,
        subscription.alert,
        now,
        Date.parse(subscription.createdAt),
      );
      if (!check.fired) continue;
      const record: AlertStateRecord = { ...check.state, seenEventIds: stored?.state.seenEventIds ?? [] };
      // Another check wrote first: it fired (or found activity); this one leaves it.
      if (
        !(await deps.notifications.putAlertState(subscription.id, workflow.id, record, stored?.version ?? 0))
      )
        continue;
      const context: MessageContext = { workflowName: workflow.name, logUrl: '' };
      const delivery = alertDelivery(subscription, check.fired, workflow.id, context, undefined, now);
      await deps.notifications.createDelivery(delivery);
      await deps.queue.enqueueDelivery({
        notificationId: subscription.id,
        deliveryId: delivery.id,
        createdAt: delivery.createdAt,
      });
      fired += 1;
    }
  }
  return fired;
}

/** `POST …/{notificationId}/test`: a sample event, delivered now like any other. */
export async function sendTestEvent(
  deps: NotificationDeps,
  principal: Principal,
  workspaceId: string,
  id: string,
) {
  const subscription = await loadNotification(deps, principal, workspaceId, id, 'write');
  const now = deps.now();
  const executionId = `test_${newId('exe').slice(4)}`;
  const event: CompletionEvent = {
    id: `evt_${executionId}`,
    type: 'workflow.execution.completed',
    timestamp: now.getTime(),
    workspaceId,
    workflowId: subscription.workflowIds[0] ?? 'wf_sample',
    executionId,
    logId: `log_${executionId}`,
    level: 'info',
    trigger: 'manual',
    startedAt: new Date(now.getTime() - 1200).toISOString(),
    endedAt: now.toISOString(),
    totalDurationMs: 1200,
    cost: { total: 0.001, tokens: { prompt: 0, completion: 0, total: 0 }, models: {} },
    files: null,
  };
  const delivery = newDelivery(event, subscription, { finalOutput: { sample: true }, traceSpans: [] });
  await deps.notifications.createDelivery(delivery);
  await deps.queue.enqueueDelivery({
    notificationId: id,
    deliveryId: delivery.id,
    createdAt: delivery.createdAt,
  });
  return deliveryView(delivery);
}

export interface AttemptDeps {
  notifications: NotificationStore;
  cipher: SecretCipher;
  http: HttpClient;
  /** Chat and e-mail channels; a delivery on a channel without its sender fails saying so. */
  chat?: ChatSender;
  email?: EmailSender;
  now: () => Date;
  random?: () => number;
}

/** What the queue worker does after one attempt: done (delete the message), or try again after a delay. */
export type AttemptResult = { kind: 'done' } | { kind: 'retry'; delayInMs: number };

/** One attempt of a delivery. A delivery already finished (a duplicate message) is left alone. */
export async function attemptDelivery(deps: AttemptDeps, message: DeliveryMessage): Promise<AttemptResult> {
  const delivery = await deps.notifications.getDelivery(message);
  if (!delivery || delivery.status === 'success' || delivery.status === 'failed') return { kind: 'done' };
  const subscription = await deps.notifications.getNotification(
    delivery.workspaceId,
    delivery.notificationId,
  );
  if (!subscription) {
    await deps.notifications.putDelivery({
      ...delivery,
      status: 'failed',
      error: 'The subscription no longer exists',
      completedAt: deps.now().toISOString(),
    });
    return { kind: 'done' };
  }
  const started = deps.now();
  await deps.notifications.putDelivery({ ...delivery, status: 'in_progress' });
  const { outcome, excerpt, error } = await send(deps, subscription, delivery, started);
  const attempts = delivery.attempts + 1;
  const responseStatus = outcome.kind === 'answered' ? outcome.status : undefined;
  const history = [
    ...delivery.history,
    {
      at: started.toISOString(),
      ...(responseStatus !== undefined ? { responseStatus } : {}),
      ...(error ? { error } : {}),
    },
  ];
  const recorded = { ...delivery, attempts, history, responseStatus, responseExcerpt: excerpt, error };
  if (isSuccess(outcome)) {
    await deps.notifications.putDelivery({
      ...recorded,
      status: 'success',
      error: undefined,
      nextAttemptAt: undefined,
      completedAt: deps.now().toISOString(),
    });
    return { kind: 'done' };
  }
  if (!isRetryable(outcome) || attempts >= maxDeliveryAttempts) {
    await deps.notifications.putDelivery({
      ...recorded,
      status: 'failed',
      nextAttemptAt: undefined,
      completedAt: deps.now().toISOString(),
    });
    return { kind: 'done' };
  }
  const delayInMs = retryDelayInMs(attempts, deps.random);
  await deps.notifications.putDelivery({
    ...recorded,
    status: 'pending',
    nextAttemptAt: new Date(deps.now().getTime() + delayInMs).toISOString(),
  });
  return { kind: 'retry', delayInMs };
}

async function send(
  deps: AttemptDeps,
  subscription: NotificationRecord,
  delivery: DeliveryRecord,
  started: Date,
): Promise<SendResult> {
  const context = secretContext(subscription.workspaceId, subscription.id);
  if (subscription.channel === 'email') {
    if (!deps.email) return { outcome: { kind: 'refused' }, error: 'No e-mail sender is configured' };
    return deps.email.send(JSON.parse(delivery.body) as EmailMessage);
  }
  if (subscription.channel === 'chat') {
    if (!deps.chat || !subscription.chat)
      return { outcome: { kind: 'refused' }, error: 'No chat sender is configured' };
    const target: ChatTarget =
      'webhookUrl' in subscription.chat
        ? { webhookUrl: subscription.chat.webhookUrl }
        : {
            channel: subscription.chat.channel,
            token: await deps.cipher.decrypt(subscription.chat.tokenCiphertext, context),
          };
    return deps.chat.send(target, JSON.parse(delivery.body) as ChatMessage);
  }
  if (!subscription.webhook)
    return { outcome: { kind: 'refused' }, error: 'The subscription has no webhook' };
  const { url, secretCiphertext } = subscription.webhook;
  const secret = secretCiphertext ? await deps.cipher.decrypt(secretCiphertext, context) : undefined;
  const headers = deliveryHeaders({
    eventType: delivery.eventType,
    deliveryId: delivery.id,
    body: delivery.body,
    timestampInMs: started.getTime(),
    secret,
  });
  return postJson(deps.http, url, headers, delivery.body);
}

/** One POST through the guarded client, its answer or failure as a send result. */
export async function postJson(
  http: HttpClient,
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<SendResult> {
  try {
    const response = await http.request({
      url,
      method: 'POST',
      headers,
      body,
      timeoutInMs: deliveryTimeoutInMs,
      maxResponseBytes: 1024 * 1024,
    });
    const excerpt = new TextDecoder()
      .decode(response.body.subarray(0, maxExcerptChars * 4))
      .slice(0, maxExcerptChars);
    const answered = { kind: 'answered' as const, status: response.status };
    return {
      outcome: answered,
      excerpt,
      ...(isSuccess(answered) ? {} : { error: `The receiver answered HTTP ${response.status}` }),
    };
  } catch (error) {
    if (error instanceof OutboundRequestRefusedError)
      return { outcome: { kind: 'refused' }, error: error.message };
    if (error instanceof OutboundRequestFailedError) {
      const timedOut = /timed out/.test(error.message);
      return {
        outcome: timedOut ? { kind: 'timed-out' } : { kind: 'connection-failed' },
        error: error.message,
      };
    }
    throw error;
  }
}
