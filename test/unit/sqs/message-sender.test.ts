import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { sendMessage, sendMessageBatchLimits } from '../../../adapters/sqs/message-sender';

const QUEUE_URL = 'http://127.0.0.1:9324/000000000000/notifications';

const newClient = () =>
  new SQSClient({ region: 'eu-central-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });

/** Every entry accepted, as SQS answers a batch. */
const acceptAll = (input: { Entries?: Array<{ Id?: string }> }) => ({
  Successful: (input.Entries ?? []).map((entry) => ({
    Id: entry.Id,
    MessageId: `m-${entry.Id}`,
    MD5OfMessageBody: 'x',
  })),
  Failed: [],
});

describe('sendMessage', () => {
  let client: SQSClient;
  let sqs: ReturnType<typeof mockClient>;

  beforeEach(() => {
    // A client of its own per test: the senders are kept per client.
    client = newClient();
    sqs = mockClient(client);
  });

  it('sends a lone message with SendMessage, as without batching', async () => {
    // Prepare
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm-1' });

    // Act
    await sendMessage(client, QUEUE_URL, '{"kind":"event"}');

    // Assess
    expect(sqs.commandCalls(SendMessageCommand).map((call) => call.args[0].input)).toEqual([
      { QueueUrl: QUEUE_URL, MessageBody: '{"kind":"event"}' },
    ]);
    expect(sqs.commandCalls(SendMessageBatchCommand)).toHaveLength(0);
  });

  it('sends the messages that come while a send is on its way in one SendMessageBatch, in order', async () => {
    // Prepare
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm-0' });
    sqs.on(SendMessageBatchCommand).callsFake(acceptAll);

    // Act
    await Promise.all(['0', '1', '2', '3'].map((body) => sendMessage(client, QUEUE_URL, body)));

    // Assess
    expect(sqs.commandCalls(SendMessageCommand).map((call) => call.args[0].input.MessageBody)).toEqual(['0']);
    expect(sqs.commandCalls(SendMessageBatchCommand).map((call) => call.args[0].input)).toEqual([
      {
        QueueUrl: QUEUE_URL,
        Entries: [
          { Id: '0', MessageBody: '1' },
          { Id: '1', MessageBody: '2' },
          { Id: '2', MessageBody: '3' },
        ],
      },
    ]);
  });

  it('puts at most 10 entries and 256 KB of bodies in one batch', async () => {
    // Prepare
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm' });
    sqs.on(SendMessageBatchCommand).callsFake(acceptAll);
    const small = Array.from({ length: 13 }, (_, index) => `small ${index}`);
    const large = Array.from({ length: 4 }, () => 'x'.repeat(100 * 1024));

    // Act
    await Promise.all([...small, ...large].map((body) => sendMessage(client, QUEUE_URL, body)));

    // Assess
    const batches = sqs.commandCalls(SendMessageBatchCommand).map((call) => call.args[0].input.Entries ?? []);
    expect(batches.map((entries) => entries.length)).toEqual([10, 4, 2]);
    for (const entries of batches) {
      const bytes = entries.reduce((sum, entry) => sum + Buffer.byteLength(entry.MessageBody ?? ''), 0);
      expect(bytes).toBeLessThanOrEqual(sendMessageBatchLimits.maxBytes);
    }
    const sent = batches.flat().map((entry) => entry.MessageBody);
    expect(sent).toEqual([...small, ...large].slice(1));
  });

  it("rejects only the caller of a refused entry, with SQS's reason", async () => {
    // Prepare
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm-0' });
    sqs.on(SendMessageBatchCommand).resolves({
      Successful: [{ Id: '0', MessageId: 'm-1', MD5OfMessageBody: 'x' }],
      Failed: [{ Id: '1', Code: 'InternalError', SenderFault: false, Message: 'try again' }],
    });

    // Act
    const outcomes = await Promise.allSettled(
      ['a', 'b', 'c'].map((body) => sendMessage(client, QUEUE_URL, body)),
    );

    // Assess
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    expect((outcomes[2] as PromiseRejectedResult).reason.message).toBe(
      `The queue ${QUEUE_URL} refused a message: InternalError (try again)`,
    );
  });

  it('rejects an entry the batch answer does not mention, not taking it as sent', async () => {
    // Prepare
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm-0' });
    sqs
      .on(SendMessageBatchCommand)
      .resolves({ Successful: [{ Id: '0', MessageId: 'm-1', MD5OfMessageBody: 'x' }] });

    // Act
    const outcomes = await Promise.allSettled(
      ['a', 'b', 'c'].map((body) => sendMessage(client, QUEUE_URL, body)),
    );

    // Assess
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    expect((outcomes[2] as PromiseRejectedResult).reason.message).toContain(
      'the batch answer does not list it',
    );
  });

  it('rejects every caller of a batch SQS did not take, and sends the next messages', async () => {
    // Prepare
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm' });
    sqs.on(SendMessageBatchCommand).rejects(new Error('AWS.SimpleQueueService.NonExistentQueue'));

    // Act
    const outcomes = await Promise.allSettled(
      ['a', 'b', 'c'].map((body) => sendMessage(client, QUEUE_URL, body)),
    );
    await sendMessage(client, QUEUE_URL, 'd');

    // Assess
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    expect(sqs.commandCalls(SendMessageCommand).map((call) => call.args[0].input.MessageBody)).toEqual([
      'a',
      'd',
    ]);
  });

  it('keeps the queues apart: messages to two queues never share a call', async () => {
    // Prepare
    const otherQueueUrl = QUEUE_URL.replace('notifications', 'jobs');
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm' });
    sqs.on(SendMessageBatchCommand).callsFake(acceptAll);

    // Act
    await Promise.all([
      sendMessage(client, QUEUE_URL, 'n1'),
      sendMessage(client, otherQueueUrl, 'j1'),
      sendMessage(client, QUEUE_URL, 'n2'),
    ]);

    // Assess
    expect(sqs.commandCalls(SendMessageCommand).map((call) => call.args[0].input)).toEqual([
      { QueueUrl: QUEUE_URL, MessageBody: 'n1' },
      { QueueUrl: otherQueueUrl, MessageBody: 'j1' },
      { QueueUrl: QUEUE_URL, MessageBody: 'n2' },
    ]);
  });
});
