/**
 * Delivery records: what a delivery sends is fixed when it is recorded (a run's completion event, or
 * an alert), under an id that stays the same however often the event arrives.
 */
import { createHash } from 'node:crypto';
import type { AlertFiring } from './alerts';
import { alertChatOf, alertEmailOf, chatMessageOf, emailMessageOf, type MessageContext } from './messages';
import { alertPayload, completionPayload } from './payload';
import type { CompletionEvent, DeliveryRecord, EventExtras, NotificationRecord } from './types';

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

export function newDelivery(
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

export function alertDelivery(
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
