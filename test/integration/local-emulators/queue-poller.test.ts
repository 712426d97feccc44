import { GetQueueAttributesCommand, SendMessageBatchCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import { sqsClient } from '../../../adapters/aws/sqs-client';
import { type QueuePollerOptions, startQueuePoller } from '../../../local/emulators/queue-poller';
import { useLocalEmulators } from '../../support/local-emulators';

describe('startQueuePoller', () => {
  const stack = useLocalEmulators();

  const queue = (name: string) => ({
    client: sqsClient(),
    queueUrl: stack().queueUrls[name],
    queueArn: `arn:aws:sqs:us-east-1:000000000000:${name}`,
  });
  const send = (queueUrl: string, bodies: string[]) =>
    sqsClient().send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: bodies.map((body, index) => ({ Id: String(index), MessageBody: body })),
      }),
    );
  const counts = async (queueUrl: string) => {
    const { Attributes } = await sqsClient().send(
      new GetQueueAttributesCommand({
        QueueUrl: queueUrl,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    return {
      ready: Number(Attributes?.ApproximateNumberOfMessages),
      inFlight: Number(Attributes?.ApproximateNumberOfMessagesNotVisible),
    };
  };
  /** A handler that records the bodies of each batch it is given. */
  const recording = (answer: (event: SQSEvent) => SQSBatchResponse = () => ({ batchItemFailures: [] })) => {
    const batches: string[][] = [];
    const handler = vi.fn(async (event: SQSEvent) => {
      batches.push(event.Records.map((record) => record.body));
      return answer(event);
    });
    return { batches, handler };
  };

  it('hands a message to the handler as it comes and deletes it once handled', async () => {
    // Prepare
    const target = queue('jobs');
    const { batches, handler } = recording();
    const poller = startQueuePoller({ ...target, batchSize: 10, handler, batchingWindowInMs: 200 });

    // Act
    await sqsClient().send(new SendMessageCommand({ QueueUrl: target.queueUrl, MessageBody: 'alone' }));
    await vi.waitFor(() => expect(handler).toHaveBeenCalled());
    await poller.stop();

    // Assess
    expect(batches).toEqual([['alone']]);
    expect(await counts(target.queueUrl)).toEqual({ ready: 0, inFlight: 0 });
  });

  it('lets messages that come after a partial batch gather for the window into one batch', async () => {
    // Prepare: two messages wait; the five sent one by one after they are received come within the window
    const target = queue('notifications');
    const { batches, handler } = recording();
    await send(target.queueUrl, ['a', 'b']);
    const poller = startQueuePoller({ ...target, batchSize: 10, handler, batchingWindowInMs: 1_000 });
    await vi.waitFor(() => expect(handler).toHaveBeenCalledTimes(1));

    // Act
    for (const body of ['c', 'd', 'e', 'f', 'g']) {
      await sqsClient().send(new SendMessageCommand({ QueueUrl: target.queueUrl, MessageBody: body }));
    }
    // The second batch comes when the 1 s window ends: wait past it (waitFor gives up after 1 s by default).
    await vi.waitFor(() => expect(handler).toHaveBeenCalledTimes(2), { timeout: 5_000 });
    await poller.stop();

    // Assess
    expect(batches).toEqual([
      ['a', 'b'],
      ['c', 'd', 'e', 'f', 'g'],
    ]);
    expect(await counts(target.queueUrl)).toEqual({ ready: 0, inFlight: 0 });
  });

  it('handles at most `concurrency` batches at once, and stops once they are done and deleted', async () => {
    // Prepare
    const target = queue('jobs-dlq');
    let running = 0;
    let most = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const handler: QueuePollerOptions['handler'] = async () => {
      running++;
      most = Math.max(most, running);
      await gate;
      running--;
      return { batchItemFailures: [] };
    };
    await send(target.queueUrl, ['1', '2', '3', '4']);
    const poller = startQueuePoller({ ...target, batchSize: 1, concurrency: 2, handler });
    await vi.waitFor(() => expect(running).toBe(2));

    // Act
    const stopping = poller.stop();
    release();
    await stopping;

    // Assess
    expect(most).toBe(2);
    const left = await counts(target.queueUrl);
    expect(left.inFlight).toBe(0);
    // What was received before the stop was handled and deleted; the rest is still on the queue.
    expect(left.ready).toBeGreaterThan(0);
    expect(left.ready).toBeLessThanOrEqual(2);
  });

  it('leaves the messages the handler reports as failed on the queue', async () => {
    // Prepare
    const target = queue('notifications-dlq');
    const { handler } = recording((event) => ({
      batchItemFailures: event.Records.filter((record) => record.body === 'bad').map((record) => ({
        itemIdentifier: record.messageId,
      })),
    }));
    await send(target.queueUrl, ['good', 'bad']);
    const poller = startQueuePoller({ ...target, batchSize: 10, handler });

    // Act
    await vi.waitFor(() => expect(handler).toHaveBeenCalled());
    await poller.stop();

    // Assess: the failed one waits out its visibility timeout, to be delivered again
    expect(await counts(target.queueUrl)).toEqual({ ready: 0, inFlight: 1 });
  });
});
