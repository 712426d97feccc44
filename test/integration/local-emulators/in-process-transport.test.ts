import { ConditionalCheckFailedException, DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
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
import { dynamoDocumentClient } from '../../../adapters/aws/dynamodb-client';
import { s3Client } from '../../../adapters/aws/s3-client';
import { sqsClient } from '../../../adapters/aws/sqs-client';
import {
  InProcessHttpHandler,
  leanForInProcess,
  registerInProcessEndpoint,
  unsignedSigner,
} from '../../../local/transport/in-process-transport';
import { clientsFor, type EmulatorClients, useLocalEmulators } from '../../support/local-emulators';

/** The service's clients (adapters/aws/*-client.ts) reach the stack's emulators without a socket. */
describe('in-process transport to the local emulators', () => {
  const stack = useLocalEmulators();
  /** Clients over HTTP, as a process outside the stack's would reach it. */
  let outside: EmulatorClients;
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
      s3: (await s3Client()).config.requestHandler,
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
  it('gives each call of a command class its own input and answer, at once and one after the other', async () => {
    // Prepare
    const documents = dynamoDocumentClient();
    const sqs = sqsClient();
    const keys = Array.from({ length: 8 }, (_, n) => ({ pk: 'T#chain', sk: `I#${n}` }));

    // Act
    await Promise.all(
      keys.map((key, n) => documents.send(new PutCommand({ TableName: table(), Item: { ...key, n } }))),
    );
    const together = await Promise.all(
      keys.map((Key) => documents.send(new GetCommand({ TableName: table(), Key }))),
    );
    const oneByOne: unknown[] = [];
    for (const Key of [...keys].reverse()) {
      oneByOne.push((await documents.send(new GetCommand({ TableName: table(), Key }))).Item?.n);
    }
    const sent = await Promise.all(
      ['a', 'b', 'c'].map((body) =>
        sqs.send(new SendMessageCommand({ QueueUrl: queueUrl(), MessageBody: body })),
      ),
    );
    const received = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl(), MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
    );
    await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl(),
        Entries: (received.Messages ?? []).map((message, index) => ({
          Id: String(index),
          ReceiptHandle: message.ReceiptHandle,
        })),
      }),
    );

    // Assess
    expect(together.map((answer) => answer.Item?.n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(oneByOne).toEqual([7, 6, 5, 4, 3, 2, 1, 0]);
    expect(new Set(sent.map((answer) => answer.MessageId)).size).toBe(3);
    expect((received.Messages ?? []).map((message) => message.Body).sort()).toEqual(['a', 'b', 'c']);
  });

  it('runs middleware added to a client after its first calls', async () => {
    // Prepare
    const documents = dynamoDocumentClient();
    await documents.send(new GetCommand({ TableName: table(), Key: { pk: 'T#late', sk: 'A' } }));
    const seen: string[] = [];
    documents.middlewareStack.add(
      (next, context) => (args) => {
        seen.push(String(context.commandName));
        return next(args);
      },
      { step: 'initialize', name: 'lateMiddleware' },
    );

    // Act
    try {
      await documents.send(new GetCommand({ TableName: table(), Key: { pk: 'T#late', sk: 'A' } }));
    } finally {
      documents.middlewareStack.remove('lateMiddleware');
    }
    await documents.send(new GetCommand({ TableName: table(), Key: { pk: 'T#late', sk: 'A' } }));

    // Assess
    expect(seen).toEqual(['GetItemCommand']);
  });

  it('retries a call the emulator answered with a server error, as over HTTP', async () => {
    // Prepare: an in-process endpoint that fails the first call, then forwards to dynalite over HTTP.
    let failuresLeft = 1;
    const flaky = 'http://127.0.0.2:9';
    const unregister = registerInProcessEndpoint(flaky, async (request) => {
      if (failuresLeft-- > 0) {
        return {
          statusCode: 500,
          headers: { 'content-type': 'application/x-amz-json-1.0' },
          body: Buffer.from(
            JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError' }),
          ),
        };
      }
      const { host: _host, 'content-length': _length, ...headers } = request.headers;
      const response = await fetch(stack().endpoints.dynamodb, {
        method: request.method,
        headers,
        body: request.body,
      });
      return {
        statusCode: response.status,
        headers: Object.fromEntries(response.headers),
        body: Buffer.from(await response.arrayBuffer()),
      };
    });
    const client = leanForInProcess(
      new DynamoDBClient({
        region: stack().env.AWS_REGION,
        endpoint: flaky,
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        requestHandler: new InProcessHttpHandler(flaky),
        signer: unsignedSigner,
      }),
      flaky,
    );
    await outside.documents.send(
      new PutCommand({ TableName: table(), Item: { pk: 'T#retry', sk: 'A', v: 1 } }),
    );

    // Act
    try {
      const got = await client.send(
        new GetItemCommand({ TableName: table(), Key: { pk: { S: 'T#retry' }, sk: { S: 'A' } } }),
      );

      // Assess
      expect(got.Item?.v).toEqual({ N: '1' });
      expect(got.$metadata.attempts).toBe(2);
    } finally {
      unregister();
      client.destroy();
    }
  });
});
