/**
 * Consumer of the notifications queue: a completion event is dispatched to the subscriptions it
 * matches; a delivery gets one attempt. A delivery to try again stays on the queue, made visible
 * when its next attempt is due (reported as a batch item failure, so it is not deleted).
 */
// First: the family's settings are read and checked before anything else loads (a wrong one fails the init).
import '../settings/workers';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { attemptDelivery } from '../../core/notifications/attempts';
import { dispatchEvent } from '../../core/notifications/dispatch';
import type { NotificationMessage } from '../../core/notifications/types';
import { logInvocation, loggerOf } from '../http/logger';
import { notificationWorkerDeps } from '../wiring/notification-worker';

export async function handleNotifications(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  const logger = loggerOf(context);
  const deps = notificationWorkerDeps();
  const failures = await Promise.all(
    event.Records.map(async (record) => {
      try {
        const message = JSON.parse(record.body) as NotificationMessage;
        if (message.kind === 'event') {
          const created = await dispatchEvent(deps, message.event);
          logger.info('Completion event dispatched', { eventId: message.event.id, deliveries: created });
          return undefined;
        }
        const result = await attemptDelivery(deps, message);
        if (result.kind === 'done') return undefined;
        await deps.queue.scheduleRetry(record.receiptHandle, result.delayInMs);
        return { itemIdentifier: record.messageId };
      } catch (error) {
        logger.error('Notification message failed; it will be delivered again', {
          messageId: record.messageId,
          error: error as Error,
        });
        return { itemIdentifier: record.messageId };
      }
    }),
  );
  return { batchItemFailures: failures.filter((failure) => failure !== undefined) };
}

export const handler = middy(handleNotifications).use(logInvocation());
