import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoBucketStore } from '../../../adapters/dynamodb/bucket-store';
import { newId } from '../../../core/ids';
import type { BucketRate } from '../../../core/limits/token-bucket';
import { type LocalDynamoDb, startLocalDynamoDb } from './local-dynamodb';

let dynamo: LocalDynamoDb;
let store: DynamoBucketStore;
const free: BucketRate = { requestsPerMinute: 60, maxBurst: 120 };
const now = Date.parse('2026-11-22T12:00:00.000Z');

beforeAll(async () => {
  dynamo = await startLocalDynamoDb();
  store = new DynamoBucketStore({ client: dynamo.client, tableName: dynamo.executionsTable });
});
afterAll(async () => {
  await dynamo?.stop();
});

describe('DynamoBucketStore', () => {
  it('lets exactly the burst through 200 concurrent requests, and never past it', async () => {
    // Prepare
    const key = newId('user');

    // Act
    const outcomes = await Promise.all(
      Array.from({ length: 200 }, () => store.take(`${key}#sync`, free, now)),
    );

    // Assess
    const admitted = outcomes.filter((outcome) => outcome.admitted);
    expect(admitted).toHaveLength(120);
    expect(Math.max(...admitted.map((outcome) => outcome.tatInMs))).toBe(now + 120 * 1000);
  });

  it('refills at the rate: one more token a second later', async () => {
    const key = newId('user');
    await Promise.all(Array.from({ length: 120 }, () => store.take(key, free, now)));
    expect((await store.take(key, free, now + 500)).admitted).toBe(false);
    expect((await store.take(key, free, now + 1000)).admitted).toBe(true);
    expect((await store.take(key, free, now + 1000)).admitted).toBe(false);
  });

  it('starts an idle bucket afresh, full', async () => {
    const key = newId('user');
    await store.take(key, free, now);
    const later = await store.take(key, free, now + 60 * 60_000);
    expect(later).toEqual({ admitted: true, tatInMs: now + 60 * 60_000 + 1000 });
  });

  it('tells a refused request where the bucket stands', async () => {
    const key = newId('user');
    await Promise.all(Array.from({ length: 120 }, () => store.take(key, free, now)));
    expect(await store.take(key, free, now)).toEqual({ admitted: false, tatInMs: now + 120_000 });
  });
});
