import { rm } from 'node:fs/promises';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { ListBucketsCommand } from '@aws-sdk/client-s3';
import {
  DeleteMessageCommand,
  ListQueuesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { S3BlobStore } from '../../../adapters/s3/blob-store';
import { buckets, queues, stateMachines, tables } from '../../../catalog/resources';
import { type LocalEmulators, startLocalEmulators } from '../../../local/emulators';
import { clientsFor, makeTempDataDir } from '../../support/local-emulators';

describe('startLocalEmulators', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function tempDir(): Promise<string> {
    const dir = await makeTempDataDir();
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    return dir;
  }

  async function start(dataDir: string): Promise<LocalEmulators> {
    const stack = await startLocalEmulators({ dataDir });
    cleanups.push(() => stack.stop());
    return stack;
  }

  it('gives every catalog variable, loopback endpoints, region and local credentials in env', async () => {
    // Act
    const stack = await start(await tempDir());

    // Assess
    for (const [name, table] of Object.entries(tables)) expect(stack.env[table.envVar]).toBe(name);
    for (const [name, bucket] of Object.entries(buckets)) expect(stack.env[bucket.envVar]).toBe(name);
    for (const [name, queue] of Object.entries(queues)) {
      expect(stack.env[queue.envVar]).toBe(`${stack.endpoints.sqs}/000000000000/${name}`);
    }
    for (const machine of Object.values(stateMachines)) {
      expect(stack.env[machine.envVar]).toMatch(/^arn:aws:states:us-east-1:000000000000:stateMachine:/);
    }
    expect(stack.env).toMatchObject({
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      DYNAMODB_ENDPOINT: stack.endpoints.dynamodb,
      S3_ENDPOINT: stack.endpoints.s3,
      SQS_ENDPOINT: stack.endpoints.sqs,
    });
    for (const endpoint of Object.values(stack.endpoints))
      expect(endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('starts cold on an empty dir and warm on an existing one, reporting its start-up time', async () => {
    // Prepare
    const dataDir = await tempDir();

    // Act
    const cold = await startLocalEmulators({ dataDir });
    await cold.stop();
    const warm = await start(dataDir);

    // Assess: how long it takes is a bench figure; here, that it starts and says so
    expect(cold.startupMs).toBeGreaterThan(0);
    expect(warm.startupMs).toBeGreaterThan(0);
    expect(Object.keys(warm.queueUrls).sort()).toEqual(Object.keys(cold.queueUrls).sort());
  });

  it('keeps items, objects and queued messages across a stop and a start on the same dir', async () => {
    // Prepare
    const dataDir = await tempDir();
    const first = await startLocalEmulators({ dataDir });
    const before = clientsFor(first);
    await before.documents.send(
      new PutCommand({ TableName: first.env.ENTITIES_TABLE, Item: { pk: 'WS#1', sk: 'META', name: 'Kept' } }),
    );
    await new S3BlobStore(first.env.FILES_BUCKET, before.s3).putJson('snapshots/1.json', { kept: true });
    await before.sqs.send(
      new SendMessageCommand({ QueueUrl: first.env.JOBS_QUEUE_URL, MessageBody: 'waiting job' }),
    );
    await before.sqs.send(
      new SendMessageCommand({ QueueUrl: first.env.NOTIFICATIONS_QUEUE_URL, MessageBody: 'in flight' }),
    );
    const inFlight = await before.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: first.env.NOTIFICATIONS_QUEUE_URL, VisibilityTimeout: 1 }),
    );
    before.destroy();
    await first.stop();

    // Act
    const second = await start(dataDir);
    const after = clientsFor(second);
    cleanups.push(async () => after.destroy());
    const item = await after.documents.send(
      new GetCommand({ TableName: second.env.ENTITIES_TABLE, Key: { pk: 'WS#1', sk: 'META' } }),
    );
    const blob = await new S3BlobStore(second.env.FILES_BUCKET, after.s3).getJson('snapshots/1.json');
    const job = await after.sqs.send(new ReceiveMessageCommand({ QueueUrl: second.env.JOBS_QUEUE_URL }));
    const redelivered = await after.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: second.env.NOTIFICATIONS_QUEUE_URL,
        WaitTimeSeconds: 3,
        MessageSystemAttributeNames: ['ApproximateReceiveCount'],
      }),
    );
    const deleteWithOldHandle = after.sqs.send(
      new DeleteMessageCommand({
        QueueUrl: second.env.NOTIFICATIONS_QUEUE_URL,
        ReceiptHandle: inFlight.Messages?.[0]?.ReceiptHandle,
      }),
    );

    // Assess
    expect(item.Item?.name).toBe('Kept');
    expect(blob).toEqual({ kept: true });
    expect(job.Messages?.[0]?.Body).toBe('waiting job');
    expect(redelivered.Messages?.[0]?.Body).toBe('in flight');
    expect(redelivered.Messages?.[0]?.MessageId).toBe(inFlight.Messages?.[0]?.MessageId);
    expect(redelivered.Messages?.[0]?.Attributes?.ApproximateReceiveCount).toBe('2');
    await expect(deleteWithOldHandle).resolves.toBeDefined();
  });

  it('creates no duplicate resources when started again on the same dir', async () => {
    // Prepare
    const dataDir = await tempDir();
    await (await startLocalEmulators({ dataDir })).stop();

    // Act
    const stack = await start(dataDir);
    const clients = clientsFor(stack);
    cleanups.push(async () => clients.destroy());
    const tableNames = (await clients.documents.send(new ListTablesCommand({}))).TableNames;
    const bucketNames = (await clients.s3.send(new ListBucketsCommand({}))).Buckets?.map(
      (bucket) => bucket.Name,
    );
    const queueUrls = (await clients.sqs.send(new ListQueuesCommand({}))).QueueUrls;

    // Assess
    expect(tableNames?.sort()).toEqual(Object.keys(tables).sort());
    expect(bucketNames).toEqual(Object.keys(buckets));
    expect(queueUrls?.sort()).toEqual(Object.values(stack.queueUrls).sort());
    expect(queueUrls).toHaveLength(Object.keys(queues).length * 2);
  });

  it('refuses a data dir that another running stack holds', async () => {
    // Prepare
    const dataDir = await tempDir();
    await start(dataDir);

    // Act
    const second = startLocalEmulators({ dataDir });

    // Assess
    await expect(second).rejects.toThrow(/in use by another running stack/);
  });
});
