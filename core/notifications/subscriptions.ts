/**
 * Managing a workspace's notification subscriptions: create, list, read, update, delete (secrets
 * encrypted, never answered), their deliveries, and a test event delivered now.
 */
import type { SecretCipher } from '../environment/types';
import { ConflictError, NotFoundError, ValidationError } from '../errors';
import { requireWorkspaceAccess } from '../identity/access';
import type { Principal } from '../identity/service';
import type { IdentityStore } from '../identity/types';
import { newId } from '../ids';
import { type Trigger, triggers } from '../triggers';
import { withDefaults } from './alerts';
import { newDelivery } from './deliveries';
import { secretContext } from './secret-context';
import { logLevels } from './types';
import type {
  AlertRule,
  CompletionEvent,
  DeliveryRecord,
  NotificationChannel,
  NotificationQueue,
  NotificationRecord,
  NotificationStore,
} from './types';

/** Subscriptions a workspace may have on one channel. */
export const maxNotificationsPerChannel = 10;

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
