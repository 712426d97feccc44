import { afterAll, beforeAll, expect, test } from 'vitest';
import { DynamoCheckpointStore } from '../../../adapters/dynamodb/checkpoint-store';
import { newId } from '../../../core/ids';
import { bulk, type LocalDynamoDb, MemoryBlobStore, startLocalDynamoDb } from './local-dynamodb';

let dynamo: LocalDynamoDb;
let blobStore: MemoryBlobStore;
let store: DynamoCheckpointStore;

beforeAll(async () => {
  dynamo = await startLocalDynamoDb();
  blobStore = new MemoryBlobStore();
  store = new DynamoCheckpointStore({ client: dynamo.client, tableName: dynamo.executionsTable, blobStore });
});

afterAll(async () => {
  await dynamo?.stop();
});

const aCheckpoint = (extra: Record<string, unknown> = {}) => ({
  completed: ['start', 'shout'],
  outputs: { shout: { result: 'HELLO', stdout: '' } },
  variables: { count: 3, flag: true, nothing: null },
  ...extra,
});

test('save stores the checkpoint and load returns it', async () => {
  // Prepare
  const executionId = newId('exe');
  const checkpoint = aCheckpoint();

  // Act
  await store.save(executionId, checkpoint);

  // Assess
  expect(await store.load(executionId)).toEqual(checkpoint);
});

test('load of an execution without a checkpoint returns undefined', async () => {
  // Act
  const loaded = await store.load(newId('exe'));

  // Assess
  expect(loaded).toBeUndefined();
});

test('save replaces the previous checkpoint of the execution', async () => {
  // Prepare
  const executionId = newId('exe');
  await store.save(executionId, aCheckpoint());
  const next = aCheckpoint({ completed: ['start', 'shout', 'respond'] });

  // Act
  await store.save(executionId, next);

  // Assess
  expect(await store.load(executionId)).toEqual(next);
});

test('delete removes the checkpoint', async () => {
  // Prepare
  const executionId = newId('exe');
  await store.save(executionId, aCheckpoint());

  // Act
  await store.delete(executionId);

  // Assess
  expect(await store.load(executionId)).toBeUndefined();
});

test('a checkpoint over 300 KB round-trips through the blob store, and a later small one is stored inline', async () => {
  // Prepare
  const executionId = newId('exe');
  const large = aCheckpoint({ outputs: { big: { result: bulk(450 * 1024) } } });
  const small = aCheckpoint();

  // Act
  await store.save(executionId, large);
  const loadedLarge = await store.load(executionId);
  await store.save(executionId, small);

  // Assess
  const key = `executions/${executionId}/checkpoint.json`;
  expect(loadedLarge).toEqual(large);
  expect(blobStore.objects.has(key)).toBe(true);
  expect(await store.load(executionId)).toEqual(small);
  const raw = await dynamo.rawItem(dynamo.executionsTable, `RUN#${executionId}`, 'CHECKPOINT');
  expect(raw?.checkpointBlobKey).toBeUndefined();
});

test('save of a checkpoint over 300 KB without a blob store fails saying so', async () => {
  // Prepare
  const withoutBlobs = new DynamoCheckpointStore({
    client: dynamo.client,
    tableName: dynamo.executionsTable,
  });
  const executionId = newId('exe');

  // Act
  const attempt = withoutBlobs.save(executionId, aCheckpoint({ big: bulk(350 * 1024) }));

  // Assess
  await expect(attempt).rejects.toThrow(/bytes.*blob store/);
  expect(await store.load(executionId)).toBeUndefined();
});

test('delete of a checkpoint kept in the blob store removes its blob too', async () => {
  // Prepare
  const executionId = newId('exe');
  await store.save(executionId, aCheckpoint({ outputs: { big: { result: bulk(450 * 1024) } } }));
  const blobsBefore = blobStore.objects.size;

  // Act
  await store.delete(executionId);

  // Assess
  expect(await store.load(executionId)).toBeUndefined();
  expect(blobStore.objects.size).toBe(blobsBefore - 1);
});

test('saveJson stores JSON text serialized by the caller, large or small', async () => {
  // Prepare
  const small = newId('exe');
  const large = newId('exe');
  const big = aCheckpoint({ outputs: { big: { result: bulk(450 * 1024) } } });

  // Act
  await store.saveJson(small, JSON.stringify(aCheckpoint()));
  await store.saveJson(large, JSON.stringify(big));

  // Assess
  expect(await store.load(small)).toEqual(aCheckpoint());
  expect(await store.load(large)).toEqual(big);
});
