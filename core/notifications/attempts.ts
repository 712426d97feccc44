/**
 * One attempt of a delivery: sent on its channel (a webhook POST through the outbound guard, a chat
 * message, an e-mail), its answer recorded, and whether to try again after a delay.
 */
import type { SecretCipher } from '../environment/types';
import { OutboundRequestFailedError, OutboundRequestRefusedError } from '../net/errors';
import type { HttpClient } from '../net/http';
import type { ChatMessage, EmailMessage } from './messages';
import { deliveryHeaders } from './payload';
import { deliveryTimeoutInMs, isRetryable, isSuccess, maxDeliveryAttempts, retryDelayInMs } from './retry';
import { secretContext } from './secret-context';
import type {
  ChatSender,
  ChatTarget,
  DeliveryMessage,
  DeliveryRecord,
  EmailSender,
  NotificationRecord,
  NotificationStore,
  SendResult,
} from './types';

const maxExcerptChars = 500;

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
