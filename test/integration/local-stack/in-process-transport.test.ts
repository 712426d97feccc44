import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  QueueDoesNotExist,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import {
  BatchWriteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDocumentClient, s3Client, sqsClient } from '../../../adapters/aws/clients';
import { InProcessHttpHandler } from '../../../adapters/aws/in-process-transport';
import { clientsFor, type StackClients, useLocalStack } from '../../support/local-stack';

/** The service's clients (adapters/aws/clients.ts) reach the stack's emulators without a socket. */
describe('in-process transport to the local stack', () => {
  const stack = useLocalStack();
  /** Clients over HTTP, as a process outside the stack's would reach it. */
  let outside: StackClients;
  beforeAll(() => {
    outside = clientsFor(stack());
  });
  afterAll(() => outside.destroy());

  const table = () => stack().env.ENTITIES_TABLE;
  const queueUrl = () => stack().env.NOTIFICATIONS_QUEUE_URL;

  it('is the transport of the DynamoDB and SQS clients, not of S3 (presigned URLs need HTTP)', async () => {
    // Act
    const handlers = {
      dynamodb: dynamoDocumentClient().config.requestHandler,
      sqs: sqsClient().config.requestHandler,
      s3: s3Client().config.requestHandler,
    };

    // Assess
    expect(handlers.dynamodb).toBeInstanceOf(InProcessHttpHandler);
    expect(handlers.sqs).toBeInstanceOf(InProcessHttpHandler);
    expect(handlers.s3).not.toBeInstanceOf(InProcessHttpHandler);
  });

  it('drops the user agent, recursion detection and logger middleware of the in-process clients only', () => {
    // Act
    const stacks = {
      dynamodb: dynamoDocumentClient().middlewareStack.identify().join('\n'),
      sqs: sqsClient().middlewareStack.identify().join('\n'),
      overHttp: outside.documents.middlewareStack.identify().join('\n'),
    };

    // Assess
    for (const stack of [stacks.dynamodb, stacks.sqs]) {
      expect(stack).not.toMatch(/getUserAgentMiddleware|recursionDetectionMiddleware|loggerMiddleware/);
      expect(stack).toMatch(/retryMiddleware/);
    }
    expect(stacks.overHttp).toMatch(/getUserAgentMiddleware/);
    expect(stacks.overHttp).toMatch(/recursionDetectionMiddleware/);
  });

  it('puts, gets, updates and queries items that a client over HTTP sees, and the other way round', async () => {
    // Prepare
    const documents = dynamoDocumentClient();
    await outside.documents.send(
      new PutCommand({ TableName: table(), Item: { pk: 'T#1', sk: 'A', count: 1, tags: ['x'] } }),
    );

    // Act
    await documents.send(new PutCommand({ TableName: table(), Item: { pk: 'T#1', sk: 'B', count: 5 } }));
    const updated = await documents.send(
      new UpdateCommand({
        TableName: table(),
        Key: { pk: 'T#1', sk: 'A' },
        UpdateExpression: 'SET #count = #count + :one',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const got = await documents.send(new GetCommand({ TableName: table(), Key: { pk: 'T#1', sk: 'A' } }));
    const queried = await documents.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': 'T#1' },
      }),
    );
    const seenOutside = await outside.documents.send(
      new GetCommand({ TableName: table(), Key: { pk: 'T#1', sk: 'B' } }),
    );

    // Assess
    expect(updated.Attributes).toEqual({ pk: 'T#1', sk: 'A', count: 2, tags: ['x'] });
    expect(got.Item).toEqual({ pk: 'T#1', sk: 'A', count: 2, tags: ['x'] });
    expect(queried.Items?.map((item) => [item.sk, item.count])).toEqual([
      ['A', 2],
      ['B', 5],
    ]);
    expect(seenOutside.Item).toEqual({ pk: 'T#1', sk: 'B', count: 5 });
  });

  it('writes a batch of items', async () => {
    // Act
    const written = await dynamoDocumentClient().send(
      new BatchWriteCommand({
        RequestItems: {
          [table()]: [1, 2, 3].map((n) => ({ PutRequest: { Item: { pk: 'T#batch', sk: `I#${n}`, n } } })),
        },
      }),
    );
    const queried = await dynamoDocumentClient().send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': 'T#batch' },
      }),
    );

    // Assess
    expect(written.UnprocessedItems ?? {}).toEqual({});
    expect(queried.Items?.map((item) => item.n)).toEqual([1, 2, 3]);
  });

  it("surfaces a failed condition as the SDK's ConditionalCheckFailedException, with the item asked for", async () => {
    // Prepare
    const documents = dynamoDocumentClient();
    await documents.send(new PutCommand({ TableName: table(), Item: { pk: 'T#cond', sk: 'A', v: 1 } }));

    // Act
    const failure = await documents
      .send(
        new PutCommand({
          TableName: table(),
          Item: { pk: 'T#cond', sk: 'A', v: 2 },
          ConditionExpression: 'attribute_not_exists(pk)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      )
      .catch((error: unknown) => error);

    // Assess
    expect(failure).toBeInstanceOf(ConditionalCheckFailedException);
    expect((failure as ConditionalCheckFailedException).$metadata.httpStatusCode).toBe(400);
    const kept = await documents.send(new GetCommand({ TableName: table(), Key: { pk: 'T#cond', sk: 'A' } }));
    expect(kept.Item?.v).toBe(1);
  });

  it('sends, receives, hides again and deletes messages, which a client over HTTP sees', async () => {
    // Prepare
    const sqs = sqsClient();
    await outside.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl(), MessageBody: 'from outside' }));

    // Act
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl(),
        Entries: [
          { Id: '1', MessageBody: 'one' },
          { Id: '2', MessageBody: 'two' },
        ],
      }),
    );
    const received = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl(), MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
    );
    const messages = received.Messages ?? [];
    const kept = messages.find((message) => message.Body === 'two');
    await sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: queueUrl(),
        ReceiptHandle: kept?.ReceiptHandle,
        VisibilityTimeout: 0,
      }),
    );
    await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl(),
        Entries: messages
          .filter((message) => message !== kept)
          .map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle })),
      }),
    );
    const again = await outside.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl(), MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
    );
    await sqs.send(
      new DeleteMessageCommand({ QueueUrl: queueUrl(), ReceiptHandle: again.Messages?.[0]?.ReceiptHandle }),
    );
    const after = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: queueUrl(),
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );

    // Assess
    expect(messages.map((message) => message.Body).sort()).toEqual(['from outside', 'one', 'two']);
    expect(again.Messages?.map((message) => message.Body)).toEqual(['two']);
    expect(after.Attributes).toEqual({
      ApproximateNumberOfMessages: '0',
      ApproximateNumberOfMessagesNotVisible: '0',
    });
  });

  it("surfaces an SQS error as the SDK's exception", async () => {
    // Act
    const failure = await sqsClient()
      .send(
        new SendMessageCommand({
          QueueUrl: queueUrl().replace(/notifications$/, 'no-such-queue'),
          MessageBody: 'x',
        }),
      )
      .catch((error: unknown) => error);

    // Assess
    expect(failure).toBeInstanceOf(QueueDoesNotExist);
  });
});
