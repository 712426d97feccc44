/**
 * NotificationQueue on SQS: completion events and deliveries on the notifications queue. A retry is
 * scheduled on the message itself (ChangeMessageVisibility, `scheduleRetry`), so the wait survives
 * any crash: the message comes back when it is due, whoever is running then.
 */
import { ChangeMessageVisibilityCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { queues } from '../../catalog/resources';
import type {
  CompletionEvent,
  DeliveryMessage,
  NotificationMessage,
  NotificationQueue,
} from '../../core/notifications/types';
import { optionalEnv, requireEnv } from '../aws/require-env';
import { sqsClient } from '../aws/sqs-client';
import { sendMessage } from './message-sender';

/** SQS keeps a message invisible for at most 12 hours. */
const maxVisibilityInSeconds = 12 * 60 * 60;

export class SqsNotificationQueue implements NotificationQueue {
  /**
   * `queueUrl` absent: the function only manages subscriptions (CDK gives it no queue); sending
   * from there names the missing variable.
   */
  constructor(private readonly options: { client: SQSClient; queueUrl?: string }) {}

  private get queueUrl(): string {
    return this.options.queueUrl ?? requireEnv(queues.notifications.envVar);
  }

  static fromEnv(): SqsNotificationQueue {
    return new SqsNotificationQueue({
      client: sqsClient(),
      queueUrl: optionalEnv(queues.notifications.envVar),
    });
  }

  async publishEvent(event: CompletionEvent): Promise<void> {
    await this.send({ kind: 'event', event });
  }

  async enqueueDelivery(message: DeliveryMessage): Promise<void> {
    await this.send({ kind: 'delivery', ...message });
  }

  /** Makes a received message visible again after `delayInMs`, its next attempt. */
  async scheduleRetry(receiptHandle: string, delayInMs: number): Promise<void> {
    await this.options.client.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: this.queueUrl,
        ReceiptHandle: receiptHandle,
        VisibilityTimeout: Math.min(maxVisibilityInSeconds, Math.max(1, Math.ceil(delayInMs / 1000))),
      }),
    );
  }

  /** Through the process's sender of this queue: the events of runs ending together go in one call. */
  private async send(message: NotificationMessage): Promise<void> {
    await sendMessage(this.options.client, this.queueUrl, JSON.stringify(message));
  }
}
