/**
 * The queue adapters' sends on the embedded stack: messages sent together all land, each once and
 * readable afterwards, in fewer calls than messages, and still there after a restart of the stack.
 */
import { rm } from 'node:fs/promises';
import { DeleteMessageBatchCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { sqsClient } from '../../../adapters/aws/sqs-client';
import { type MeteredEvent, subscribeMetered } from '../../../adapters/metering';
import { SqsJobQueue } from '../../../adapters/sqs/job-queue';
import { sendMessage } from '../../../adapters/sqs/message-sender';
import { SqsNotificationQueue } from '../../../adapters/sqs/notification-queue';
import { queues } from '../../../catalog/resources';
import { completionEventOf } from '../../support/completion-event';
import { startLocalEmulators } from '../../../local/emulators';
import { clientsFor, makeTempDataDir, useLocalEmulators } from '../../support/local-emulators';

/** Every message body on the queue, each deleted once read. */
async function drain(queueUrl: string, expected: number, client: SQSClient = sqsClient()): Promise<string[]> {
  const bodies: string[] = [];
  for (let receive = 0; receive < 50 && bodies.length < expected; receive++) {
    const { Messages: messages = [] } = await client.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
    );
    if (messages.length === 0) continue;
    bodies.push(...messages.map((message) => message.Body ?? ''));
    await client.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: messages.map((message, index) => ({
          Id: String(index),
          ReceiptHandle: message.ReceiptHandle,
        })),
      }),
    );
  }
  return bodies;
}

/** The SQS operations called while `act` runs, by name. */
async function sqsCallsDuring(act: () => Promise<unknown>): Promise<Record<string, number>> {
  const calls: Record<string, number> = {};
  const stop = subscribeMetered((event: MeteredEvent) => {
    if (event.kind === 'aws' && event.service === 'SQS')
      calls[event.operation] = (calls[event.operation] ?? 0) + 1;
  });
  try {
    await act();
  } finally {
    stop();
  }
  return calls;
}

describe('queue sends on the local emulators', () => {
  const stack = useLocalEmulators();

  it('lands every job message sent at once, each once, in fewer calls than messages', async () => {
    // Prepare
    const queue = SqsJobQueue.fromEnv();
    const taskIds = Array.from({ length: 40 }, (_, index) => `task_${index}`);

    // Act
    const calls = await sqsCallsDuring(() =>
      Promise.all(taskIds.map((taskId) => queue.send({ kind: 'job', taskId }))),
    );
    const bodies = await drain(stack().env[queues.jobs.envVar], taskIds.length);

    // Assess
    expect(bodies.map((body) => JSON.parse(body).taskId).sort()).toEqual([...taskIds].sort());
    expect(calls.SendMessage).toBe(1);
    expect(calls.SendMessageBatch).toBe(4);
  });

  it('lands the completion events of runs ending together, and a lone one after them', async () => {
    // Prepare
    const queue = SqsNotificationQueue.fromEnv();
    const eventOf = (index: number) => completionEventOf(`exec_${index}`);

    // Act
    await Promise.all(Array.from({ length: 12 }, (_, index) => queue.publishEvent(eventOf(index))));
    const lone = await sqsCallsDuring(() => queue.publishEvent(eventOf(12)));
    const bodies = await drain(stack().env[queues.notifications.envVar], 13);

    // Assess
    const executionIds = bodies.map((body) => JSON.parse(body).event.executionId);
    expect(executionIds.sort()).toEqual(Array.from({ length: 13 }, (_, index) => `exec_${index}`).sort());
    expect(lone).toEqual({ SendMessage: 1 });
  });
});

describe('queue sends across a restart of the local emulators', () => {
  it('keeps every message whose batched send was answered', async () => {
    // Prepare
    const dataDir = await makeTempDataDir();
    const bodies = Array.from({ length: 12 }, (_, index) => `message ${index}`);
    try {
      const first = await startLocalEmulators({ dataDir });
      const firstClients = clientsFor(first);
      try {
        await Promise.all(
          bodies.map((body) => sendMessage(firstClients.sqs, first.env[queues.jobs.envVar], body)),
        );
      } finally {
        firstClients.destroy();
        await first.stop();
      }

      // Act
      const second = await startLocalEmulators({ dataDir });
      const secondClients = clientsFor(second);
      let after: string[];
      try {
        after = await drain(second.env[queues.jobs.envVar], bodies.length, secondClients.sqs);
      } finally {
        secondClients.destroy();
        await second.stop();
      }

      // Assess
      expect(after.sort()).toEqual([...bodies].sort());
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
