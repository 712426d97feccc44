import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { sqsClient } from '../../../adapters/aws/sqs-client';
import { queues } from '../../../catalog/resources';
import { useLocalEmulators } from '../../support/local-emulators';

describe('local emulators: SQS', () => {
  const stack = useLocalEmulators();

  it('sends, receives and deletes a message on every catalog queue', async () => {
    for (const queue of Object.values(queues)) {
      // Prepare
      const QueueUrl = stack().env[queue.envVar];
      await sqsClient().send(
        new SendMessageCommand({ QueueUrl, MessageBody: JSON.stringify({ q: queue.envVar }) }),
      );

      // Act
      const received = await sqsClient().send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 1 }));
      const message = received.Messages?.[0];
      await sqsClient().send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: message?.ReceiptHandle }));
      const after = await sqsClient().send(
        new GetQueueAttributesCommand({
          QueueUrl,
          AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
        }),
      );

      // Assess
      expect(JSON.parse(message?.Body ?? '{}')).toEqual({ q: queue.envVar });
      expect(after.Attributes).toEqual({
        ApproximateNumberOfMessages: '0',
        ApproximateNumberOfMessagesNotVisible: '0',
      });
    }
  });

  it('configures each queue with its visibility timeout and a redrive policy to its own DLQ', async () => {
    for (const [name, queue] of Object.entries(queues)) {
      // Act
      const { Attributes } = await sqsClient().send(
        new GetQueueAttributesCommand({ QueueUrl: stack().env[queue.envVar], AttributeNames: ['All'] }),
      );
      const dlq = await sqsClient().send(
        new GetQueueAttributesCommand({
          QueueUrl: stack().queueUrls[`${name}-dlq`],
          AttributeNames: ['QueueArn'],
        }),
      );

      // Assess
      expect(Attributes?.VisibilityTimeout).toBe(String(queue.visibilityTimeoutInSeconds));
      expect(JSON.parse(Attributes?.RedrivePolicy ?? '{}')).toEqual({
        deadLetterTargetArn: dlq.Attributes?.QueueArn,
        maxReceiveCount: queue.maxReceiveCount,
      });
    }
  });

  it('moves a message received more than maxReceiveCount times to the DLQ', async () => {
    // Prepare
    const QueueUrl = stack().env.JOBS_QUEUE_URL;
    await sqsClient().send(new SendMessageCommand({ QueueUrl, MessageBody: 'poison' }));
    const counts: string[] = [];
    for (let receive = 0; receive < queues.jobs.maxReceiveCount; receive++) {
      const { Messages } = await sqsClient().send(
        new ReceiveMessageCommand({
          QueueUrl,
          VisibilityTimeout: 0,
          MessageSystemAttributeNames: ['ApproximateReceiveCount'],
        }),
      );
      counts.push(Messages?.[0]?.Attributes?.ApproximateReceiveCount ?? 'none');
    }

    // Act
    const beyond = await sqsClient().send(new ReceiveMessageCommand({ QueueUrl, VisibilityTimeout: 0 }));
    const dead = await sqsClient().send(
      new ReceiveMessageCommand({ QueueUrl: stack().queueUrls['jobs-dlq'], WaitTimeSeconds: 1 }),
    );

    // Assess
    expect(counts).toEqual(['1', '2', '3', '4', '5']);
    expect(beyond.Messages).toBeUndefined();
    expect(dead.Messages?.map((message) => message.Body)).toEqual(['poison']);
  });

  it('delays redelivery by ChangeMessageVisibility, as webhook retries do', async () => {
    // Prepare
    const QueueUrl = stack().env.NOTIFICATIONS_QUEUE_URL;
    await sqsClient().send(new SendMessageCommand({ QueueUrl, MessageBody: 'retry me' }));
    const first = await sqsClient().send(new ReceiveMessageCommand({ QueueUrl }));

    // Act
    await sqsClient().send(
      new ChangeMessageVisibilityCommand({
        QueueUrl,
        ReceiptHandle: first.Messages?.[0]?.ReceiptHandle,
        VisibilityTimeout: 1,
      }),
    );
    const hidden = await sqsClient().send(new ReceiveMessageCommand({ QueueUrl }));
    const again = await sqsClient().send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 3 }));

    // Assess
    expect(hidden.Messages).toBeUndefined();
    expect(again.Messages?.[0]?.Body).toBe('retry me');
    await sqsClient().send(
      new DeleteMessageCommand({ QueueUrl, ReceiptHandle: again.Messages?.[0]?.ReceiptHandle }),
    );
  });
});

describe('local emulators: SQS: the 256 KiB message limit', () => {
  const stack = useLocalEmulators();

  it('refuses a 300 KB message naming the limit, and takes one of 250 KB', async () => {
    // Prepare
    const QueueUrl = stack().env[queues.jobs.envVar];

    // Act
    const refused = await sqsClient()
      .send(new SendMessageCommand({ QueueUrl, MessageBody: 'x'.repeat(300 * 1024) }))
      .catch((error: unknown) => error);
    const taken = await sqsClient().send(
      new SendMessageCommand({ QueueUrl, MessageBody: 'x'.repeat(250 * 1024) }),
    );

    // Assess
    expect(refused).toMatchObject({ message: expect.stringMatching(/shorter than 262144 bytes/) });
    expect(taken.MessageId).toEqual(expect.any(String));
  });
});
