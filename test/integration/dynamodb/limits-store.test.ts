import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoLimitsStore } from '../../../adapters/dynamodb/limits-store';
import { newId } from '../../../core/ids';
import type { BucketRate } from '../../../core/limits/token-bucket';
import { type LocalDynamoDb, startLocalDynamoDb } from './local-dynamodb';

let dynamo: LocalDynamoDb;
let store: DynamoLimitsStore;
const free: BucketRate = { requestsPerMinute: 60, maxBurst: 120 };
const now = Date.parse('2026-11-22T12:00:00.000Z');

beforeAll(async () => {
  dynamo = await startLocalDynamoDb();
  store = new DynamoLimitsStore({
    client: dynamo.client,
    tableName: dynamo.limitsTable,
    entitiesTableName: dynamo.entitiesTable,
  });
});
afterAll(async () => {
  await dynamo?.stop();
});

/** Owners kept in the limits table (as source addresses are); users and organizations are tested below. */
const owner = () => `source#${newId('src')}`;
/** Execution ids are unique across owners, as the marks of costed runs are. */
const run = () => newId('run');

describe('DynamoLimitsStore buckets', () => {
  it('lets exactly the burst through 200 concurrent requests, and never past it', async () => {
    // Prepare
    const key = owner();

    // Act
    const outcomes = await Promise.all(Array.from({ length: 200 }, () => store.take(key, 'sync', free, now)));

    // Assess
    const admitted = outcomes.filter((outcome) => outcome.admitted);
    expect(admitted).toHaveLength(120);
    expect(Math.max(...admitted.map((outcome) => outcome.tatInMs))).toBe(now + 120 * 1000);
    expect((await store.read(key, '2026-11')).tatInMs.sync).toBe(now + 120 * 1000);
  });

  it('takes 16 tokens of one bucket at once in about one write each, not two', async () => {
    // Prepare
    const key = owner();
    let updates = 0;
    const name = 'countUpdates';
    dynamo.client.middlewareStack.add(
      (next) => async (args) => {
        const { headers } = args.request as { headers: Record<string, string> };
        if (headers['x-amz-target'] === 'DynamoDB_20120810.UpdateItem') updates++;
        return next(args);
      },
      { step: 'finalizeRequest', name },
    );

    // Act
    const outcomes = await Promise.all(Array.from({ length: 16 }, () => store.take(key, 'sync', free, now)));
    dynamo.client.middlewareStack.remove(name);

    // Assess: the first take finds the bucket idle; the 15 others, started meanwhile, try it busy.
    // Losing the idle update to the first would be a failed write each: 31 in all.
    expect(outcomes.filter((outcome) => outcome.admitted)).toHaveLength(16);
    expect(updates).toBeGreaterThanOrEqual(16);
    expect(updates).toBeLessThan(24);
  });

  it('takes several tokens at once, all or none, from an idle and from a busy bucket', async () => {
    // Prepare
    const key = owner();

    // Act
    const idle = await store.take(key, 'sync', free, now, { count: 100 });
    const busy = await store.take(key, 'sync', free, now, { count: 16 });
    const tooMany = await store.take(key, 'sync', free, now, { count: 20 });
    const rest = await store.take(key, 'sync', free, now, { count: 4 });

    // Assess
    expect([idle.admitted, busy.admitted, tooMany.admitted, rest.admitted]).toEqual([
      true,
      true,
      false,
      true,
    ]);
    expect(busy.tatInMs).toBe(now + 116 * 1000);
    expect((await store.read(key, '2026-11')).tatInMs.sync).toBe(now + 120 * 1000);
  });

  it('refuses to take more tokens at once than the burst, and none', async () => {
    // Prepare
    const key = owner();

    // Act
    const taking = store.take(key, 'sync', free, now, { count: 121 });

    // Assess
    await expect(taking).rejects.toThrow('Cannot take 121 tokens');
    expect((await store.read(key, '2026-11')).tatInMs.sync).toBeUndefined();
  });

  it('refills at the rate: one more token a second later', async () => {
    const key = owner();
    await Promise.all(Array.from({ length: 120 }, () => store.take(key, 'sync', free, now)));
    expect((await store.take(key, 'sync', free, now + 500)).admitted).toBe(false);
    expect((await store.take(key, 'sync', free, now + 1000)).admitted).toBe(true);
    expect((await store.take(key, 'sync', free, now + 1000)).admitted).toBe(false);
  });

  it('keeps the buckets of one owner apart', async () => {
    const key = owner();
    await Promise.all(Array.from({ length: 120 }, () => store.take(key, 'sync', free, now)));
    expect((await store.take(key, 'sync', free, now)).admitted).toBe(false);
    expect((await store.take(key, 'async', free, now)).admitted).toBe(true);
    expect(await store.read(key, '2026-11')).toEqual({
      tatInMs: { sync: now + 120_000, async: now + 1000 },
      periodCostUsd: 0,
    });
  });

  it('starts an idle bucket afresh, full', async () => {
    const key = owner();
    await store.take(key, 'api', free, now);
    const later = await store.take(key, 'api', free, now + 60 * 60_000);
    expect(later).toEqual({ admitted: true, tatInMs: now + 60 * 60_000 + 1000, periodCostUsd: 0 });
  });

  it('tells a refused request where the bucket stands', async () => {
    const key = owner();
    await Promise.all(Array.from({ length: 120 }, () => store.take(key, 'sync', free, now)));
    expect(await store.take(key, 'sync', free, now)).toEqual({
      admitted: false,
      tatInMs: now + 120_000,
      periodCostUsd: 0,
    });
  });
});

describe('DynamoLimitsStore usage', () => {
  it("adds runs' costs to their period, and answers the period's cost with a token", async () => {
    // Prepare
    const key = owner();

    // Act
    await store.addRunCost(key, '2026-11', run(), 0.25);
    await store.addRunCost(key, '2026-11', run(), 0.5);
    await store.addRunCost(key, '2026-10', run(), 4);

    // Assess
    expect((await store.read(key, '2026-11')).periodCostUsd).toBe(0.75);
    expect((await store.read(key, '2026-10')).periodCostUsd).toBe(4);
    expect((await store.read(key, '2026-12')).periodCostUsd).toBe(0);
    expect((await store.take(key, 'sync', free, now, { period: '2026-11' })).periodCostUsd).toBe(0.75);
  });

  it('counts a charge with the token in one write, and refunds it', async () => {
    // Prepare
    const key = owner();

    // Act
    const first = await store.take(key, 'sync', free, now, { period: '2026-11', chargeUsd: 0.001 });
    const second = await store.take(key, 'sync', free, now, { period: '2026-11', chargeUsd: 0.001 });
    const refunded = await store.charge(key, '2026-11', -0.001);

    // Assess: each answers the cost before its own charge
    expect([first.periodCostUsd, second.periodCostUsd, refunded.periodCostUsd]).toEqual([0, 0.001, 0.002]);
    expect(refunded.tatInMs).toEqual({ sync: now + 2000 });
    expect((await store.read(key, '2026-11')).periodCostUsd).toBe(0.001);
  });

  it('charges nothing when the token is refused', async () => {
    const key = owner();
    const tiny: BucketRate = { requestsPerMinute: 1, maxBurst: 1 };
    await store.take(key, 'sync', tiny, now, { period: '2026-11', chargeUsd: 1 });
    const refused = await store.take(key, 'sync', tiny, now, { period: '2026-11', chargeUsd: 1 });
    expect(refused).toMatchObject({ admitted: false, periodCostUsd: 1 });
    expect((await store.read(key, '2026-11')).periodCostUsd).toBe(1);
  });

  it('adds a run once however often it is added again', async () => {
    const key = owner();
    const executionId = run();
    for (let attempt = 0; attempt < 3; attempt++) await store.addRunCost(key, '2026-11', executionId, 1);
    expect((await store.read(key, '2026-11')).periodCostUsd).toBe(1);
  });

  it('adds a run once when an earlier attempt stopped after the add, before its mark', async () => {
    // Prepare: what an attempt leaves when it stops between the two writes
    const key = owner();
    await (store as unknown as { addPending: DynamoLimitsStore['addRunCost'] }).addPending(
      key,
      '2026-11',
      'run-1',
      1,
    );

    // Act: Finalize redelivered
    await store.addRunCost(key, '2026-11', 'run-1', 1);
    await store.addRunCost(key, '2026-11', 'run-1', 1);

    // Assess
    expect((await store.read(key, '2026-11')).periodCostUsd).toBe(1);
    const raw = await dynamo.rawItem(dynamo.limitsTable, `LIMITS#${key}`, 'LIMITS');
    expect(raw?.pendingRuns).toBeUndefined();
  });

  it('sums many small costs exactly', async () => {
    const key = owner();
    await Promise.all(Array.from({ length: 50 }, () => store.addRunCost(key, '2026-11', run(), 0.001)));
    expect((await store.read(key, '2026-11')).periodCostUsd).toBe(0.05);
  });
});

describe('DynamoLimitsStore on user and organization items', () => {
  async function aUser(plan: 'free' | 'pro' = 'free', organizationId?: string) {
    const id = newId('usr');
    await dynamo.client.send(
      new PutCommand({
        TableName: dynamo.entitiesTable,
        Item: {
          pk: `USER#${id}`,
          sk: 'USER',
          id,
          email: `${id}@example.com`,
          name: 'U',
          plan,
          organizationId,
          createdAt: 'x',
        },
      }),
    );
    return id;
  }

  it("keeps a user's buckets and usage on the user's item, and answers the user without them", async () => {
    // Prepare
    const id = await aUser();

    // Act
    const taken = await store.take(`user#${id}`, 'sync_60_120', free, now, {
      period: '2026-11',
      chargeUsd: 0.001,
    });

    // Assess
    expect(taken).toMatchObject({ admitted: true, periodCostUsd: 0 });
    expect(taken.user).toEqual({ id, email: `${id}@example.com`, name: 'U', plan: 'free', createdAt: 'x' });
    const raw = await dynamo.rawItem(dynamo.entitiesTable, `USER#${id}`, 'USER');
    expect(raw?.tat_sync_60_120?.N).toBe(String(now + 1000));
    expect(raw?.['cost_2026-11']?.N).toBe('0.001');
  });

  it('takes nothing when the guard no longer holds, and says who the user is now', async () => {
    const onPro = await aUser('pro');
    const inOrganization = await aUser('free', 'org_1');
    const planChanged = await store.take(`user#${onPro}`, 'api', free, now, { guard: { plan: 'free' } });
    const joined = await store.take(`user#${inOrganization}`, 'api', free, now, { guard: { plan: 'free' } });
    expect(planChanged).toMatchObject({ admitted: false, user: { plan: 'pro' } });
    expect(joined).toMatchObject({ admitted: false, user: { organizationId: 'org_1' } });
    expect((await store.read(`user#${onPro}`, '2026-11')).tatInMs).toEqual({});
  });

  it('never creates the item of a user or organization that does not exist', async () => {
    const missing = `user#${newId('usr')}`;
    expect((await store.take(missing, 'api', free, now)).admitted).toBe(false);
    await store.addRunCost(missing, '2026-11', newId('run'), 1);
    expect(await dynamo.rawItem(dynamo.entitiesTable, `USER#${missing.slice(5)}`, 'USER')).toBeUndefined();
  });
});
