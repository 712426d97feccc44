import {
  ConditionalCheckFailedException,
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  ResourceNotFoundException,
  UpdateItemCommand,
  UpdateTableCommand,
} from '@aws-sdk/client-dynamodb';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTableCache } from '../../../local/stack/dynalite-caches';
import { type RunningDynamoDb, startDynamoDb } from '../../../local/stack/dynamodb';

/** dynalite's table descriptions kept per process (local/stack/dynalite-caches.ts), seen through the SDK. */
describe('dynalite table cache', () => {
  let dataDir: string;
  let dynamodb: RunningDynamoDb;
  let client: DynamoDBClient;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'dynalite-caches-'));
    dynamodb = await startDynamoDb(dataDir, '127.0.0.1');
    client = new DynamoDBClient({
      region: 'us-east-1',
      endpoint: dynamodb.endpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
  });
  afterAll(async () => {
    client.destroy();
    await dynamodb.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** dynalite answers CreateTable while the table is CREATING, and makes it ACTIVE right after. */
  const createTable = async (TableName: string, keyName: string) => {
    await client.send(
      new CreateTableCommand({
        TableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: keyName, AttributeType: 'S' }],
        KeySchema: [{ AttributeName: keyName, KeyType: 'HASH' }],
      }),
    );
    for (;;) {
      const { Table } = await client.send(new DescribeTableCommand({ TableName }));
      if (Table?.TableStatus === 'ACTIVE') return;
    }
  };
  const putNew = (TableName: string, Item: Record<string, { S: string } | { N: string }>) =>
    client.send(new PutItemCommand({ TableName, Item, ConditionExpression: 'attribute_not_exists(id)' }));

  const failureOf = (call: Promise<unknown>) =>
    call.then(
      () => undefined,
      (error: unknown) => error,
    );

  it('answers the item calls after the first from the cache, with the same results', async () => {
    // Prepare
    await createTable('cached', 'id');
    await putNew('cached', { id: { S: 'a' }, count: { N: '1' } });
    await client.send(new GetItemCommand({ TableName: 'cached', Key: { id: { S: 'a' } } }));
    const before = { ...dynamodb.tableCache };

    // Act
    await client.send(
      new UpdateItemCommand({
        TableName: 'cached',
        Key: { id: { S: 'a' } },
        UpdateExpression: 'ADD #count :one',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':one': { N: '1' } },
      }),
    );
    const got = await client.send(new GetItemCommand({ TableName: 'cached', Key: { id: { S: 'a' } } }));

    // Assess
    expect(got.Item).toEqual({ id: { S: 'a' }, count: { N: '2' } });
    expect(dynamodb.tableCache.hits - before.hits).toBe(2);
    expect(dynamodb.tableCache.misses).toBe(before.misses);
  });

  it('still fails a put whose condition does not hold, and leaves the item as it was', async () => {
    // Prepare
    await createTable('conditional', 'id');
    await putNew('conditional', { id: { S: 'a' }, value: { S: 'first' } });

    // Act
    const second = putNew('conditional', { id: { S: 'a' }, value: { S: 'second' } });

    // Assess
    await expect(second).rejects.toBeInstanceOf(ConditionalCheckFailedException);
    const got = await client.send(new GetItemCommand({ TableName: 'conditional', Key: { id: { S: 'a' } } }));
    expect(got.Item?.value).toEqual({ S: 'first' });
  });

  it('reads the description again after UpdateTable, and shows the change', async () => {
    // Prepare
    await createTable('updated', 'id');
    await putNew('updated', { id: { S: 'a' } });
    const before = { ...dynamodb.tableCache };

    // Act
    await client.send(
      new UpdateTableCommand({
        TableName: 'updated',
        BillingMode: 'PROVISIONED',
        ProvisionedThroughput: { ReadCapacityUnits: 3, WriteCapacityUnits: 4 },
      }),
    );
    const got = await client.send(new GetItemCommand({ TableName: 'updated', Key: { id: { S: 'a' } } }));
    const { Table } = await client.send(new DescribeTableCommand({ TableName: 'updated' }));

    // Assess
    expect(got.Item).toEqual({ id: { S: 'a' } });
    expect(dynamodb.tableCache.misses - before.misses).toBe(1);
    expect(Table?.BillingModeSummary?.BillingMode).toBe('PROVISIONED');
    expect(Table?.ProvisionedThroughput).toMatchObject({ ReadCapacityUnits: 3, WriteCapacityUnits: 4 });
  });

  it('forgets a deleted table, and uses the key schema of one created again under its name', async () => {
    // Prepare
    await createTable('recreated', 'id');
    await putNew('recreated', { id: { S: 'a' } });
    const hitsBefore = dynamodb.tableCache.hits;
    await client.send(new GetItemCommand({ TableName: 'recreated', Key: { id: { S: 'a' } } }));
    await client.send(new GetItemCommand({ TableName: 'recreated', Key: { id: { S: 'a' } } }));
    expect(dynamodb.tableCache.hits).toBeGreaterThan(hitsBefore);
    await client.send(new DeleteTableCommand({ TableName: 'recreated' }));

    // Act
    const afterDelete = await failureOf(
      client.send(new GetItemCommand({ TableName: 'recreated', Key: { id: { S: 'a' } } })),
    );
    await createTable('recreated', 'name');
    const oldKey = await failureOf(
      client.send(new GetItemCommand({ TableName: 'recreated', Key: { id: { S: 'a' } } })),
    );
    await client.send(new PutItemCommand({ TableName: 'recreated', Item: { name: { S: 'b' } } }));
    const got = await client.send(new GetItemCommand({ TableName: 'recreated', Key: { name: { S: 'b' } } }));

    // Assess
    expect(afterDelete).toBeInstanceOf(ResourceNotFoundException);
    expect(String(oldKey)).toMatch(/key element does not match the schema/);
    expect(got.Item).toEqual({ name: { S: 'b' } });
  });

  it('keeps the descriptions across a restart on the same data dir only in LevelDB', async () => {
    // Prepare
    await createTable('durable', 'id');
    await putNew('durable', { id: { S: 'a' } });
    await dynamodb.stop();

    // Act
    dynamodb = await startDynamoDb(dataDir, '127.0.0.1');
    const restarted = new DynamoDBClient({
      region: 'us-east-1',
      endpoint: dynamodb.endpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const got = await restarted.send(new GetItemCommand({ TableName: 'durable', Key: { id: { S: 'a' } } }));
    client.destroy();
    client = restarted;

    // Assess
    expect(got.Item).toEqual({ id: { S: 'a' } });
    expect(dynamodb.tableCache).toEqual({ hits: 0, misses: 1 });
  });
});

/** The store's own calls, interleaved as concurrent requests can interleave them. */
describe('dynalite table cache during a change', () => {
  interface Store {
    tableDb: { put(key: string, value: unknown, done: (error?: unknown) => void): void };
    getTable(name: string, done: (error: unknown, table?: { marker?: number }) => void): void;
  }
  type TableGet = (key: string, done: (error: unknown, value?: unknown) => void) => void;
  const dynaliteDb = createRequire(import.meta.url)('dynalite/db') as { create(options: object): Store };
  const put = (store: Store, marker: number) =>
    new Promise<void>((resolve, reject) =>
      store.tableDb.put('t', { TableName: 't', TableStatus: 'ACTIVE', marker }, (error) =>
        error ? reject(error) : resolve(),
      ),
    );
  const read = (store: Store) =>
    new Promise<number | undefined>((resolve, reject) =>
      store.getTable('t', (error, table) => (error ? reject(error) : resolve(table?.marker))),
    );

  it('does not keep a description whose read ended after a newer one was written', async () => {
    // Prepare
    const { started: store } = withTableCache(() => dynaliteDb.create({}));
    await put(store, 1);
    const { tableDb } = store as unknown as { tableDb: { get: TableGet } };
    const get = tableDb.get.bind(tableDb);
    let releaseRead = () => {};
    const readHeld = new Promise<void>((resolve) => {
      releaseRead = resolve;
    });
    tableDb.get = (key, done) => get(key, (error, value) => void readHeld.then(() => done(error, value)));

    // Act
    const inFlight = read(store);
    await put(store, 2);
    releaseRead();
    const stale = await inFlight;
    tableDb.get = get;
    const after = [await read(store), await read(store)];

    // Assess
    expect(stale).toBe(1);
    expect(after).toEqual([2, 2]);
  });
});
