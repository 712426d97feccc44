import {
  ConditionalCheckFailedException,
  DescribeTableCommand,
  GetItemCommand,
  PutItemCommand,
  ResourceNotFoundException,
  UpdateItemCommand,
  UpdateTableCommand,
} from '@aws-sdk/client-dynamodb';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import {
  EXPRESSION_MEMO_SIZE,
  expressionMemoCounts,
  withTableCache,
} from '../../../local/emulators/dynalite-caches';
import { createActiveTable, deleteGoneTable, useDynalite } from '../../support/dynalite';

/** dynalite's table descriptions kept per process (local/emulators/dynalite-caches.ts), seen through the SDK. */
describe('dynalite table cache', () => {
  const dynalite = useDynalite('dynalite-caches-');

  const createTable = (TableName: string, keyName: string) =>
    createActiveTable(dynalite.client, {
      TableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: keyName, AttributeType: 'S' }],
      KeySchema: [{ AttributeName: keyName, KeyType: 'HASH' }],
    });
  const putNew = (TableName: string, Item: Record<string, { S: string } | { N: string }>) =>
    dynalite.client.send(
      new PutItemCommand({ TableName, Item, ConditionExpression: 'attribute_not_exists(id)' }),
    );

  const failureOf = (call: Promise<unknown>) =>
    call.then(
      () => undefined,
      (error: unknown) => error,
    );

  it('answers the item calls after the first from the cache, with the same results', async () => {
    // Prepare
    await createTable('cached', 'id');
    await putNew('cached', { id: { S: 'a' }, count: { N: '1' } });
    await dynalite.client.send(new GetItemCommand({ TableName: 'cached', Key: { id: { S: 'a' } } }));
    const before = { ...dynalite.dynamodb.tableCache };

    // Act
    await dynalite.client.send(
      new UpdateItemCommand({
        TableName: 'cached',
        Key: { id: { S: 'a' } },
        UpdateExpression: 'ADD #count :one',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':one': { N: '1' } },
      }),
    );
    const got = await dynalite.client.send(
      new GetItemCommand({ TableName: 'cached', Key: { id: { S: 'a' } } }),
    );

    // Assess
    expect(got.Item).toEqual({ id: { S: 'a' }, count: { N: '2' } });
    expect(dynalite.dynamodb.tableCache.hits - before.hits).toBe(2);
    expect(dynalite.dynamodb.tableCache.misses).toBe(before.misses);
  });

  it('still fails a put whose condition does not hold, and leaves the item as it was', async () => {
    // Prepare
    await createTable('conditional', 'id');
    await putNew('conditional', { id: { S: 'a' }, value: { S: 'first' } });

    // Act
    const second = putNew('conditional', { id: { S: 'a' }, value: { S: 'second' } });

    // Assess
    await expect(second).rejects.toBeInstanceOf(ConditionalCheckFailedException);
    const got = await dynalite.client.send(
      new GetItemCommand({ TableName: 'conditional', Key: { id: { S: 'a' } } }),
    );
    expect(got.Item?.value).toEqual({ S: 'first' });
  });

  it('reads the description again after UpdateTable, and shows the change', async () => {
    // Prepare
    await createTable('updated', 'id');
    await putNew('updated', { id: { S: 'a' } });
    const before = { ...dynalite.dynamodb.tableCache };

    // Act
    await dynalite.client.send(
      new UpdateTableCommand({
        TableName: 'updated',
        BillingMode: 'PROVISIONED',
        ProvisionedThroughput: { ReadCapacityUnits: 3, WriteCapacityUnits: 4 },
      }),
    );
    const got = await dynalite.client.send(
      new GetItemCommand({ TableName: 'updated', Key: { id: { S: 'a' } } }),
    );
    const { Table } = await dynalite.client.send(new DescribeTableCommand({ TableName: 'updated' }));

    // Assess
    expect(got.Item).toEqual({ id: { S: 'a' } });
    expect(dynalite.dynamodb.tableCache.misses - before.misses).toBe(1);
    expect(Table?.BillingModeSummary?.BillingMode).toBe('PROVISIONED');
    expect(Table?.ProvisionedThroughput).toMatchObject({ ReadCapacityUnits: 3, WriteCapacityUnits: 4 });
  });

  it('forgets a deleted table, and uses the key schema of one created again under its name', async () => {
    // Prepare
    await createTable('recreated', 'id');
    await putNew('recreated', { id: { S: 'a' } });
    const hitsBefore = dynalite.dynamodb.tableCache.hits;
    await dynalite.client.send(new GetItemCommand({ TableName: 'recreated', Key: { id: { S: 'a' } } }));
    await dynalite.client.send(new GetItemCommand({ TableName: 'recreated', Key: { id: { S: 'a' } } }));
    expect(dynalite.dynamodb.tableCache.hits).toBeGreaterThan(hitsBefore);
    await deleteGoneTable(dynalite.client, 'recreated');

    // Act
    const afterDelete = await failureOf(
      dynalite.client.send(new GetItemCommand({ TableName: 'recreated', Key: { id: { S: 'a' } } })),
    );
    await createTable('recreated', 'name');
    const oldKey = await failureOf(
      dynalite.client.send(new GetItemCommand({ TableName: 'recreated', Key: { id: { S: 'a' } } })),
    );
    await dynalite.client.send(new PutItemCommand({ TableName: 'recreated', Item: { name: { S: 'b' } } }));
    const got = await dynalite.client.send(
      new GetItemCommand({ TableName: 'recreated', Key: { name: { S: 'b' } } }),
    );

    // Assess
    expect(afterDelete).toBeInstanceOf(ResourceNotFoundException);
    expect(String(oldKey)).toMatch(/key element does not match the schema/);
    expect(got.Item).toEqual({ name: { S: 'b' } });
  });

  it('keeps the descriptions across a restart on the same data dir only in LevelDB', async () => {
    // Prepare
    await createTable('durable', 'id');
    await putNew('durable', { id: { S: 'a' } });

    // Act
    await dynalite.restart();
    const got = await dynalite.client.send(
      new GetItemCommand({ TableName: 'durable', Key: { id: { S: 'a' } } }),
    );

    // Assess
    expect(got.Item).toEqual({ id: { S: 'a' } });
    expect(dynalite.dynamodb.tableCache).toEqual({ hits: 0, misses: 1 });
  });
});

/** dynalite's parsed expressions kept per process (local/emulators/dynalite-caches.ts), seen through the SDK. */
describe('dynalite expression memo', () => {
  const dynalite = useDynalite('dynalite-expressions-', (client) =>
    createActiveTable(client, {
      TableName: 'memo',
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
    }),
  );

  const failureOf = (call: Promise<unknown>) =>
    call.then(
      () => undefined,
      (error: unknown) => error,
    );
  /** The rate-limit update's shape: names in both expressions, the time in the values. */
  const take = (id: string, values: Record<string, { N: string } | { S: string }>) =>
    dynalite.client.send(
      new UpdateItemCommand({
        TableName: 'memo',
        Key: { id: { S: id } },
        UpdateExpression: 'SET #tat = :next ADD #cost :charge',
        ConditionExpression: 'attribute_exists(id) AND NOT #tat >= :now',
        ExpressionAttributeNames: { '#tat': 'tat', '#cost': 'cost' },
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
  const between = (lower: string, upper: string) =>
    dynalite.client.send(
      new UpdateItemCommand({
        TableName: 'memo',
        Key: { id: { S: 'between' } },
        UpdateExpression: 'SET #tat = :lower',
        ConditionExpression: 'attribute_not_exists(#tat) OR #tat BETWEEN :lower AND :upper',
        ExpressionAttributeNames: { '#tat': 'tat' },
        ExpressionAttributeValues: { ':lower': { N: lower }, ':upper': { N: upper } },
      }),
    );

  it("answers an expression parsed before with this call's values, and still checks its condition", async () => {
    // Prepare
    await dynalite.client.send(
      new PutItemCommand({ TableName: 'memo', Item: { id: { S: 'a' }, tat: { N: '0' } } }),
    );
    await take('a', { ':next': { N: '10' }, ':charge': { N: '1' }, ':now': { N: '5' } });
    const before = { ...expressionMemoCounts };

    // Act
    const second = await take('a', { ':next': { N: '30' }, ':charge': { N: '2' }, ':now': { N: '20' } });
    const refused = await failureOf(
      take('a', { ':next': { N: '40' }, ':charge': { N: '4' }, ':now': { N: '25' } }),
    );
    const missing = await failureOf(
      take('nobody', { ':next': { N: '1' }, ':charge': { N: '1' }, ':now': { N: '0' } }),
    );

    // Assess
    expect(second.Attributes).toEqual({ id: { S: 'a' }, tat: { N: '30' }, cost: { N: '3' } });
    expect(refused).toBeInstanceOf(ConditionalCheckFailedException);
    expect(missing).toBeInstanceOf(ConditionalCheckFailedException);
    expect(expressionMemoCounts.hits - before.hits).toBe(6);
    expect(expressionMemoCounts.misses).toBe(before.misses);
    const got = await dynalite.client.send(
      new GetItemCommand({ TableName: 'memo', Key: { id: { S: 'a' } } }),
    );
    expect(got.Item).toEqual({ id: { S: 'a' }, tat: { N: '30' }, cost: { N: '3' } });
  });

  it('reports the errors of values that differ from a kept parse as dynalite does', async () => {
    // Prepare
    await take('a', { ':next': { N: '50' }, ':charge': { N: '1' }, ':now': { N: '45' } });

    // Act
    const unused = await failureOf(
      take('a', { ':next': { N: '60' }, ':charge': { N: '1' }, ':now': { N: '55' }, ':extra': { N: '1' } }),
    );
    const wrongType = await failureOf(
      take('a', { ':next': { N: '60' }, ':charge': { S: 'one' }, ':now': { N: '55' } }),
    );
    const undefinedValue = await failureOf(take('a', { ':next': { N: '60' }, ':charge': { N: '1' } }));

    // Assess
    expect(String(unused)).toMatch(
      /Value provided in ExpressionAttributeValues unused in expressions: keys: \{:extra\}/,
    );
    expect(String(wrongType)).toMatch(
      /Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: STRING/,
    );
    expect(String(undefinedValue)).toMatch(
      /An expression attribute value used in expression is not defined; attribute value: :now/,
    );
  });

  it("checks BETWEEN's bounds with each call's values", async () => {
    // Prepare
    await between('1', '2');

    // Act
    const reversed = await failureOf(between('9', '3'));
    const inOrderAgain = await failureOf(between('1', '3'));

    // Assess
    expect(String(reversed)).toMatch(
      /The BETWEEN operator requires upper bound to be greater than or equal to lower bound/,
    );
    expect(inOrderAgain).toBeUndefined();
  });

  it('parses a BETWEEN once, whatever bounds in order later calls bring', async () => {
    // Prepare
    await dynalite.client.send(
      new PutItemCommand({ TableName: 'memo', Item: { id: { S: 'between' }, tat: { N: '0' } } }),
    );
    await between('0', '200');
    const before = { ...expressionMemoCounts };

    // Act: each call sets the attribute to its lower bound, which the next one's bounds hold.
    const later = [
      await failureOf(between('-5', '400')),
      await failureOf(between('-5', '-5')),
      await failureOf(between('-10', '1e3')),
    ];

    // Assess
    expect(later).toEqual([undefined, undefined, undefined]);
    expect(expressionMemoCounts.misses).toBe(before.misses);
    expect(expressionMemoCounts.hits - before.hits).toBe(6);
    const got = await dynalite.client.send(
      new GetItemCommand({ TableName: 'memo', Key: { id: { S: 'between' } } }),
    );
    expect(got.Item?.tat).toEqual({ N: '-10' });
  });

  it(`keeps at most ${EXPRESSION_MEMO_SIZE} expressions, dropping the oldest`, async () => {
    // Prepare
    const projected = (n: number) =>
      dynalite.client.send(
        new GetItemCommand({
          TableName: 'memo',
          Key: { id: { S: 'a' } },
          ProjectionExpression: `tat, p${n}`,
        }),
      );
    await projected(0);
    for (let n = 1; n <= EXPRESSION_MEMO_SIZE; n++) await projected(n);
    const before = { ...expressionMemoCounts };

    // Act
    const got = await projected(0);
    await projected(EXPRESSION_MEMO_SIZE);

    // Assess
    expect(got.Item).toEqual({ tat: { N: '50' } });
    expect(expressionMemoCounts.misses - before.misses).toBe(1);
    expect(expressionMemoCounts.hits - before.hits).toBe(1);
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
