import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import {
  ConditionalCheckFailedException,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceNotFoundException,
} from '@aws-sdk/client-dynamodb';
import {
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SetQueueAttributesCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import {
  BatchGetCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { dynamoDocumentClient } from '../../../adapters/aws/dynamodb-client';
import { resetClients } from '../../../adapters/aws/client-options';
import { sqsClient } from '../../../adapters/aws/sqs-client';
import { dispatchOverPort, serveOverPort } from '../../../local/transport/cross-thread-transport';
import type { InProcessRequest } from '../../../local/transport/in-process-transport';
import { InProcessHttpHandler } from '../../../local/transport/in-process-transport';
import { applyEnv, type LocalEmulators, startLocalEmulators } from '../../../local/emulators';
import { startEmulatorThread } from '../../../local/emulators/emulator-thread';
import { makeTempDataDir, useLocalEmulators } from '../../support/local-emulators';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };

/** The service's DynamoDB and SQS clients reach emulators that run in the stack's emulator thread. */
describe('local emulators: emulator thread', () => {
  const stack = useLocalEmulators();
  const table = () => stack().env.ENTITIES_TABLE;
  const queueUrl = () => stack().env.NOTIFICATIONS_QUEUE_URL;

  it('answers HTTP clients while the main thread is blocked', () => {
    // Prepare: another process asks DynamoDB for its tables while this thread waits for it.
    const script = `
      const response = await fetch(process.argv[1], {
        method: 'POST',
        headers: {
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-target': 'DynamoDB_20120810.ListTables',
          'x-amz-date': '20260101T000000Z',
          authorization: 'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
        },
        body: '{}',
      });
      process.stdout.write(JSON.stringify({ status: response.status, body: await response.json() }));`;

    // Act
    const child = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', script, stack().endpoints.dynamodb],
      { encoding: 'utf8', timeout: 20_000 },
    );

    // Assess
    expect(child.stderr).toBe('');
    const answer = JSON.parse(child.stdout) as { status: number; body: { TableNames: string[] } };
    expect(answer.status).toBe(200);
    expect(answer.body.TableNames).toContain(table());
  });

  it('gives the service clients the in-process handler, whose calls cross to the thread', async () => {
    // Act
    const handler = dynamoDocumentClient().config.requestHandler;
    const described = await dynamoDocumentClient().send(new DescribeTableCommand({ TableName: table() }));

    // Assess
    expect(handler).toBeInstanceOf(InProcessHttpHandler);
    expect(sqsClient().config.requestHandler).toBeInstanceOf(InProcessHttpHandler);
    expect(described.Table?.TableStatus).toBe('ACTIVE');
  });

  it('puts, gets, updates, queries, batch-gets and deletes items', async () => {
    // Prepare
    const documents = dynamoDocumentClient();
    const key = (sk: string) => ({ pk: 'THREAD#items', sk });

    // Act
    await documents.send(new PutCommand({ TableName: table(), Item: { ...key('A'), n: 1, text: 'é€😀' } }));
    await documents.send(new PutCommand({ TableName: table(), Item: { ...key('B'), n: 2 } }));
    const updated = await documents.send(
      new UpdateCommand({
        TableName: table(),
        Key: key('A'),
        UpdateExpression: 'SET n = n + :one',
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const got = await documents.send(new GetCommand({ TableName: table(), Key: key('A') }));
    const batch = await documents.send(
      new BatchGetCommand({ RequestItems: { [table()]: { Keys: [key('A'), key('B'), key('none')] } } }),
    );
    await documents.send(new DeleteCommand({ TableName: table(), Key: key('B') }));
    const queried = await documents.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': 'THREAD#items' },
      }),
    );

    // Assess
    expect(updated.Attributes).toEqual({ ...key('A'), n: 2, text: 'é€😀' });
    expect(got.Item).toEqual({ ...key('A'), n: 2, text: 'é€😀' });
    expect(batch.Responses?.[table()]?.map((item) => item.sk).sort()).toEqual(['A', 'B']);
    expect(queried.Items).toEqual([{ ...key('A'), n: 2, text: 'é€😀' }]);
  });

  it("turns a failed condition into the SDK's ConditionalCheckFailedException, changing nothing", async () => {
    // Prepare
    const documents = dynamoDocumentClient();
    const key = { pk: 'THREAD#cond', sk: 'A' };
    await documents.send(new PutCommand({ TableName: table(), Item: { ...key, tokens: 0 } }));

    // Act
    const failure = await documents
      .send(
        new UpdateCommand({
          TableName: table(),
          Key: key,
          UpdateExpression: 'SET tokens = tokens - :one',
          ConditionExpression: 'tokens >= :one',
          ExpressionAttributeValues: { ':one': 1 },
        }),
      )
      .catch((error: unknown) => error);
    const kept = await documents.send(new GetCommand({ TableName: table(), Key: key }));

    // Assess
    expect(failure).toBeInstanceOf(ConditionalCheckFailedException);
    expect((failure as ConditionalCheckFailedException).$metadata.httpStatusCode).toBe(400);
    expect(kept.Item).toEqual({ ...key, tokens: 0 });
  });

  it("turns the emulator's errors into the SDK's exceptions", async () => {
    // Act
    const missing = await dynamoDocumentClient()
      .send(new GetCommand({ TableName: 'no-such-table', Key: { pk: 'a', sk: 'b' } }))
      .catch((error: unknown) => error);
    const invalid = await dynamoDocumentClient()
      .send(new QueryCommand({ TableName: table(), KeyConditionExpression: 'pk = :missing' }))
      .catch((error: unknown) => error);

    // Assess
    expect(missing).toBeInstanceOf(ResourceNotFoundException);
    expect((invalid as Error).name).toBe('ValidationException');
    expect((invalid as Error).message).toMatch(/:missing/);
  });

  it('creates, configures, sends to, receives from and deletes from queues', async () => {
    // Prepare
    const sqs = sqsClient();
    const created = await sqs.send(new CreateQueueCommand({ QueueName: 'thread-test' }));
    await sqs.send(
      new SetQueueAttributesCommand({ QueueUrl: created.QueueUrl!, Attributes: { VisibilityTimeout: '30' } }),
    );

    // Act
    await sqs.send(new SendMessageCommand({ QueueUrl: created.QueueUrl!, MessageBody: 'one' }));
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: created.QueueUrl!,
        Entries: [{ Id: '2', MessageBody: 'two' }],
      }),
    );
    const received = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: created.QueueUrl!, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
    );
    const messages = received.Messages ?? [];
    const two = messages.find((message) => message.Body === 'two');
    await sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: created.QueueUrl!,
        ReceiptHandle: two?.ReceiptHandle,
        VisibilityTimeout: 0,
      }),
    );
    const deleted = await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: created.QueueUrl!,
        Entries: messages
          .filter((message) => message !== two)
          .map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle })),
      }),
    );
    const attributes = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: created.QueueUrl!,
        AttributeNames: [
          'VisibilityTimeout',
          'ApproximateNumberOfMessages',
          'ApproximateNumberOfMessagesNotVisible',
        ],
      }),
    );

    // Assess
    expect(created.QueueUrl).toBe(`${stack().endpoints.sqs}/000000000000/thread-test`);
    expect(messages.map((message) => message.Body).sort()).toEqual(['one', 'two']);
    expect(deleted.Successful).toHaveLength(1);
    expect(attributes.Attributes).toEqual({
      VisibilityTimeout: '30',
      ApproximateNumberOfMessages: '1',
      ApproximateNumberOfMessagesNotVisible: '0',
    });
  });

  it('answers calls from many runs at once, each with its own answer', async () => {
    // Act
    const documents = dynamoDocumentClient();
    await Promise.all(
      Array.from({ length: 40 }, (_, n) =>
        documents.send(new PutCommand({ TableName: table(), Item: { pk: 'THREAD#many', sk: `I#${n}`, n } })),
      ),
    );
    const got = await Promise.all(
      Array.from({ length: 40 }, (_, n) =>
        documents.send(new GetCommand({ TableName: table(), Key: { pk: 'THREAD#many', sk: `I#${n}` } })),
      ),
    );

    // Assess
    expect(got.map((answer) => answer.Item?.n)).toEqual(Array.from({ length: 40 }, (_, n) => n));
  });

  it('refuses a queue call to an unknown queue with the SDK exception', async () => {
    // Act
    const failure = await sqsClient()
      .send(
        new SendMessageCommand({ QueueUrl: queueUrl().replace(/notifications$/, 'nope'), MessageBody: 'x' }),
      )
      .catch((error: unknown) => error);

    // Assess
    expect((failure as Error).name).toBe('QueueDoesNotExist');
  });
});

describe('local emulators: emulator thread, started and stopped', () => {
  /** Undone after each test, last first: stacks and threads stopped, clients destroyed, dirs removed. */
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    resetClients();
  });
  const tempDir = async () => {
    const dir = await makeTempDataDir();
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    return dir;
  };
  const start = async (dataDir: string): Promise<LocalEmulators> => {
    const stack = await startLocalEmulators({ dataDir });
    cleanups.push(() => stack.stop());
    return stack;
  };

  it('stops cleanly: the lock and LevelDB are released, and a new stack on the dir has the data', async () => {
    // Prepare
    const dataDir = await tempDir();
    const first = await start(dataDir);
    applyEnv(first.env);
    const table = first.env.ENTITIES_TABLE;
    await dynamoDocumentClient().send(
      new PutCommand({ TableName: table, Item: { pk: 'STOP', sk: 'A', v: 1 } }),
    );
    await sqsClient().send(
      new SendMessageCommand({ QueueUrl: first.env.NOTIFICATIONS_QUEUE_URL, MessageBody: 'kept' }),
    );

    // Act
    await first.stop();
    const lockAfterStop = existsSync(join(dataDir, 'stack.lock'));
    const second = await start(dataDir);
    applyEnv(second.env);
    const got = await dynamoDocumentClient().send(
      new GetCommand({ TableName: table, Key: { pk: 'STOP', sk: 'A' } }),
    );
    const received = await sqsClient().send(
      new ReceiveMessageCommand({ QueueUrl: second.env.NOTIFICATIONS_QUEUE_URL, WaitTimeSeconds: 1 }),
    );

    // Assess
    expect(lockAfterStop).toBe(false);
    expect(got.Item).toEqual({ pk: 'STOP', sk: 'A', v: 1 });
    expect(received.Messages?.map((message) => message.Body)).toEqual(['kept']);
  });

  it('fails a call after the stop, saying the emulator is not running', async () => {
    // Prepare
    const stack = await start(await tempDir());
    applyEnv(stack.env);
    const documents = dynamoDocumentClient();
    const sqs = sqsClient();
    await documents.send(new GetCommand({ TableName: stack.env.ENTITIES_TABLE, Key: { pk: 'a', sk: 'b' } }));

    // Act
    await stack.stop();
    const dynamoFailure = await documents
      .send(new GetCommand({ TableName: stack.env.ENTITIES_TABLE, Key: { pk: 'a', sk: 'b' } }))
      .catch((error: unknown) => error);
    const sqsFailure = await sqs
      .send(new SendMessageCommand({ QueueUrl: stack.env.NOTIFICATIONS_QUEUE_URL, MessageBody: 'late' }))
      .catch((error: unknown) => error);

    // Assess
    expect((dynamoFailure as Error).message).toBe(
      `The local emulator at ${stack.endpoints.dynamodb} is not running`,
    );
    expect((sqsFailure as Error).message).toBe(`The local emulator at ${stack.endpoints.sqs} is not running`);
  });

  it('rejects a start that fails in the thread, naming the cause, and releases what had started', async () => {
    // Prepare: the queue journal's directory is taken by a file.
    const dataDir = await tempDir();
    const options = {
      dynamodbPath: join(dataDir, 'dynamodb'),
      sqsDirectory: join(dataDir, 'sqs'),
      host: '127.0.0.1',
    };
    await writeFile(options.sqsDirectory, 'not a directory');

    // Act
    const failure = await startEmulatorThread(options).catch((error: unknown) => error);
    await rm(options.sqsDirectory);
    const again = await startEmulatorThread(options);
    cleanups.push(() => again.stop());
    const dynamodb = new DynamoDBClient({
      region: 'us-east-1',
      endpoint: again.endpoints.dynamodb,
      credentials,
    });
    cleanups.push(() => dynamodb.destroy());
    const described = await dynamodb
      .send(new DescribeTableCommand({ TableName: 'none' }))
      .catch((error: unknown) => error);

    // Assess
    expect(failure).toBeInstanceOf(Error);
    expect((failure as NodeJS.ErrnoException).code).toBe('EEXIST');
    expect((failure as Error).message).toContain(options.sqsDirectory);
    expect(described).toBeInstanceOf(ResourceNotFoundException);
  });

  it('answers over HTTP until the stop, and refuses connections after it', async () => {
    // Prepare
    const dataDir = await tempDir();
    const thread = await startEmulatorThread({
      dynamodbPath: join(dataDir, 'dynamodb'),
      sqsDirectory: join(dataDir, 'sqs'),
      host: '127.0.0.1',
    });
    const sqs = new SQSClient({
      region: 'us-east-1',
      endpoint: thread.endpoints.sqs,
      credentials,
      maxAttempts: 1,
    });
    cleanups.push(() => sqs.destroy());
    const before = await sqs.send(new CreateQueueCommand({ QueueName: 'http-check' }));

    // Act
    await thread.stop();
    const after = await sqs
      .send(new CreateQueueCommand({ QueueName: 'http-check' }))
      .catch((error: unknown) => error);

    // Assess
    expect(before.QueueUrl).toMatch(/\/http-check$/);
    expect((after as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });
});

describe('cross-thread transport', () => {
  const request: InProcessRequest = {
    method: 'POST',
    url: '/path?x=1',
    headers: { 'content-type': 'application/json' },
    body: Buffer.from('{"a":"é"}'),
  };

  it('carries the request and the answer, bytes and headers intact', async () => {
    // Prepare
    const channel = new MessageChannel();
    const seen: InProcessRequest[] = [];
    const server = serveOverPort(channel.port2, async (call) => {
      seen.push(call);
      return { statusCode: 201, statusMessage: 'Created', headers: { 'x-echo': call.url }, body: call.body! };
    });
    const client = dispatchOverPort(channel.port1, 'Echo');

    // Act
    const answer = await client.dispatch(request);

    // Assess
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/path?x=1', headers: request.headers });
    expect(Buffer.from(seen[0].body!).toString()).toBe('{"a":"é"}');
    expect(answer).toMatchObject({
      statusCode: 201,
      statusMessage: 'Created',
      headers: { 'x-echo': '/path?x=1' },
    });
    expect(Buffer.isBuffer(answer.body)).toBe(true);
    expect(answer.body.toString()).toBe('{"a":"é"}');
    client.close(new Error('done'));
    server.close();
  });

  it('rejects with the error the serving side threw, naming the emulator', async () => {
    // Prepare
    const channel = new MessageChannel();
    const server = serveOverPort(channel.port2, async () => {
      throw new TypeError('listener broke');
    });
    const client = dispatchOverPort(channel.port1, 'Local DynamoDB');

    // Act
    const failure = await client.dispatch(request).catch((error: unknown) => error);

    // Assess
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).name).toBe('TypeError');
    expect((failure as Error).message).toBe('Local DynamoDB: listener broke');
    client.close(new Error('done'));
    server.close();
  });

  it('fails the calls waiting and every later call once closed; the server waits for its calls when idling', async () => {
    // Prepare
    const channel = new MessageChannel();
    let release: () => void = () => undefined;
    let arrived: () => void = () => undefined;
    const callArrived = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const server = serveOverPort(
      channel.port2,
      () =>
        new Promise((resolve) => {
          release = () => resolve({ statusCode: 200, headers: {}, body: Buffer.alloc(0) });
          arrived();
        }),
    );
    const client = dispatchOverPort(channel.port1, 'Slow');
    const waiting = client.dispatch(request).catch((error: unknown) => error);
    // The server holds the call (a fixed wait here raced the message on a loaded machine).
    await callArrived;
    let idle = false;
    const idling = server.idle(5_000).then(() => {
      idle = true;
    });

    // Act
    await new Promise((resolve) => setTimeout(resolve, 20));
    const idleBeforeRelease = idle;
    release();
    await idling;
    const answered = await waiting;
    client.close(new Error('The emulator thread is stopped'));
    const late = await client.dispatch(request).catch((error: unknown) => error);

    // Assess
    expect(idleBeforeRelease).toBe(false);
    expect(idle).toBe(true);
    expect(answered).toMatchObject({ statusCode: 200 });
    expect((late as Error).message).toBe('The emulator thread is stopped');
    server.close();
  });

  it('rejects a call waiting when the connection is closed under it', async () => {
    // Prepare
    const channel = new MessageChannel();
    const server = serveOverPort(channel.port2, () => new Promise(() => undefined));
    const client = dispatchOverPort(channel.port1, 'Stuck');
    const waiting = client.dispatch(request).catch((error: unknown) => error);

    // Act
    client.close(new Error('The emulator thread is stopped'));

    // Assess
    expect(((await waiting) as Error).message).toBe('The emulator thread is stopped');
    server.close();
  });
});
