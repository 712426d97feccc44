/**
 * Sending messages to a queue through a group commit (adapters/aws/write-batcher.ts): a lone
 * message is one SendMessage, as without batching; the messages that come while a send is on its
 * way go in the next as one SendMessageBatch. SQS bills a batch as one request (per 64 KB of it),
 * so a batch of one is a SendMessage: the same price, and an error that is SQS's own.
 *
 * The sender is kept per client and queue for the life of the process, so the queue adapters the
 * handlers build per invocation share it.
 */
import { SendMessageBatchCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { WriteBatcher } from '../aws/write-batcher';

/** SendMessageBatch takes at most 10 entries and 256 KB of message bodies in all. */
export const sendMessageBatchLimits = { maxEntries: 10, maxBytes: 256 * 1024 } as const;

/** One message of a batch that SQS refused, with its reason. */
export class MessageRefusedError extends Error {
  constructor(
    readonly queueUrl: string,
    readonly code: string | undefined,
    readonly senderFault: boolean | undefined,
    reason: string | undefined,
  ) {
    super(`The queue ${queueUrl} refused a message: ${code ?? 'no code'} (${reason ?? 'no reason given'})`);
    this.name = 'MessageRefusedError';
  }
}

function batcherFor(client: SQSClient, queueUrl: string): WriteBatcher<string> {
  return new WriteBatcher<string>({
    maxItemsPerBatch: sendMessageBatchLimits.maxEntries,
    maxBytesPerBatch: sendMessageBatchLimits.maxBytes,
    sizeInBytesOf: (body) => Buffer.byteLength(body, 'utf8'),
    async writeOne(body) {
      await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
    },
    async writeBatch(bodies) {
      const answer = await client.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: bodies.map((body, index) => ({ Id: String(index), MessageBody: body })),
        }),
      );
      const refused = new Map((answer.Failed ?? []).map((entry) => [entry.Id, entry]));
      const accepted = new Set((answer.Successful ?? []).map((entry) => entry.Id));
      return bodies.map((_body, index) => {
        const id = String(index);
        if (accepted.has(id)) return undefined;
        const entry = refused.get(id);
        return entry
          ? new MessageRefusedError(queueUrl, entry.Code, entry.SenderFault, entry.Message)
          : new MessageRefusedError(queueUrl, undefined, undefined, 'the batch answer does not list it');
      });
    },
  });
}

const senders = new WeakMap<SQSClient, Map<string, WriteBatcher<string>>>();

/** Sends one message body to the queue; resolves when SQS has accepted it. */
export function sendMessage(client: SQSClient, queueUrl: string, body: string): Promise<void> {
  let byQueue = senders.get(client);
  if (!byQueue) {
    byQueue = new Map();
    senders.set(client, byQueue);
  }
  let batcher = byQueue.get(queueUrl);
  if (!batcher) {
    batcher = batcherFor(client, queueUrl);
    byQueue.set(queueUrl, batcher);
  }
  return batcher.write(body);
}
