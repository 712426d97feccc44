/**
 * The local stand-in for a Lambda SQS event source: receives batches from a queue, hands each to
 * the worker's handler as an SQS event, and deletes the messages the handler did not report as
 * failed (`ReportBatchItemFailures`). A failed message comes back after the queue's visibility
 * timeout, and after `maxReceiveCount` receives goes to the dead-letter queue, as in AWS.
 */
import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';

export interface QueuePollerOptions {
  client: SQSClient;
  queueUrl: string;
  queueArn: string;
  batchSize: number;
  handler(event: SQSEvent): Promise<SQSBatchResponse | undefined>;
  /** Batches handled at once, as Lambda runs several invocations per event source. Default 2. */
  concurrency?: number;
  /** Long-poll wait of each receive. Default 1 s, so a stop is never held up for long. */
  waitTimeInSeconds?: number;
  /**
   * After a batch of more than one message but fewer than `batchSize`, the next receive waits this
   * long, so that under load messages gather into fuller batches, as Lambda's batching window
   * gathers them. A lone message (no load) or a full batch (more waiting) is followed by the next
   * receive at once. Default 0.
   */
  batchingWindowInMs?: number;
  onError?(error: unknown): void;
}

export interface QueuePoller {
  /** Stops receiving; resolves once the batches being handled are done and deleted. */
  stop(): Promise<void>;
}

/**
 * One receive at a time, so that what arrives meanwhile gathers into the next batch; each batch is
 * handled while the next is received, up to `concurrency` batches at once.
 */
export function startQueuePoller(options: QueuePollerOptions): QueuePoller {
  let stopping = false;
  const onError = options.onError ?? ((error) => console.error(`Queue poller ${options.queueUrl}`, error));
  const windowInMs = options.batchingWindowInMs ?? 0;
  const maxBatches = options.concurrency ?? 2;
  const handling = new Set<Promise<void>>();
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const receiving = (async () => {
    while (!stopping) {
      if (handling.size >= maxBatches) {
        await Promise.race(handling);
        continue;
      }
      let messages: Message[];
      try {
        const received = await options.client.send(
          new ReceiveMessageCommand({
            QueueUrl: options.queueUrl,
            MaxNumberOfMessages: options.batchSize,
            WaitTimeSeconds: options.waitTimeInSeconds ?? 1,
            MessageSystemAttributeNames: ['All'],
            MessageAttributeNames: ['All'],
          }),
        );
        messages = received.Messages ?? [];
      } catch (error) {
        if (stopping) break;
        onError(error);
        await pause(1_000);
        continue;
      }
      if (messages.length === 0) continue;
      const batch = handleBatch(options, messages, onError).finally(() => handling.delete(batch));
      handling.add(batch);
      if (messages.length > 1 && messages.length < options.batchSize && windowInMs > 0 && !stopping) {
        await pause(windowInMs);
      }
    }
    await Promise.all(handling);
  })();
  return {
    /**
     * A receive in progress is not aborted: the queue may already have handed it messages, which
     * an abandoned request would leave invisible until their visibility timeout. The long poll is
     * short, so the last receive ends within a second and its batch is handled and deleted.
     */
    async stop() {
      stopping = true;
      await receiving;
    },
  };
}

async function handleBatch(
  options: QueuePollerOptions,
  messages: Message[],
  onError: (error: unknown) => void,
) {
  let failed: Set<string>;
  try {
    const response = await options.handler({ Records: messages.map((m) => sqsRecord(m, options.queueArn)) });
    failed = new Set((response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
  } catch (error) {
    // A handler that throws fails the whole batch, as Lambda's event source treats it.
    onError(error);
    return;
  }
  const done = messages.filter((message) => !failed.has(message.MessageId ?? ''));
  if (done.length === 0) return;
  try {
    await options.client.send(
      new DeleteMessageBatchCommand({
        QueueUrl: options.queueUrl,
        Entries: done.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle })),
      }),
    );
  } catch (error) {
    // Undeleted messages are delivered again; their handlers are idempotent.
    onError(error);
  }
}

function sqsRecord(message: Message, queueArn: string): SQSRecord {
  const attributes = message.Attributes ?? {};
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
      SentTimestamp: attributes.SentTimestamp ?? String(Date.now()),
      SenderId: attributes.SenderId ?? 'local',
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
    },
    messageAttributes: {},
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: queueArn.split(':')[3] ?? 'us-east-1',
  };
}
