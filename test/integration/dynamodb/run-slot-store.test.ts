import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoRunSlotStore } from '../../../adapters/dynamodb/run-slot-store';
import { newId } from '../../../core/ids';
import { claimRunSlot } from '../../../core/limits/run-slots';
import { defaultRunsInProgress } from '../../../core/limits/plans';
import { type LocalDynamoDb, startLocalDynamoDb } from './local-dynamodb';

let dynamo: LocalDynamoDb;
let store: DynamoRunSlotStore;
const nowInMs = Date.parse('2026-11-22T12:00:00.000Z');
const later = nowInMs + 60_000;

beforeAll(async () => {
  dynamo = await startLocalDynamoDb();
  store = new DynamoRunSlotStore({ client: dynamo.client, tableName: dynamo.limitsTable });
});
afterAll(async () => {
  await dynamo?.stop();
});

const workspace = () => newId('ws');
const run = () => newId('run');

async function slotsOf(workspaceId: string): Promise<string[]> {
  const item = await dynamo.rawItem(dynamo.limitsTable, `RUNS#${workspaceId}`, 'RUNS');
  return Object.keys(item?.runs?.M ?? {}).sort();
}

describe('DynamoRunSlotStore', () => {
  it('admits exactly the cap of 50 concurrent runs, the first of the workspace among them', async () => {
    // Prepare
    const workspaceId = workspace();

    // Act
    const added = await Promise.all(
      Array.from({ length: 50 }, () => store.add(workspaceId, run(), later, 20)),
    );

    // Assess
    expect(added.filter(Boolean)).toHaveLength(20);
    expect(await slotsOf(workspaceId)).toHaveLength(20);
  });

  it('admits a run that holds its slot already again at the cap, and no other', async () => {
    // Prepare
    const workspaceId = workspace();
    const [first, second] = [run(), run()];
    await store.add(workspaceId, first, later, 1);

    // Act
    const again = await store.add(workspaceId, first, later, 1);
    const other = await store.add(workspaceId, second, later, 1);

    // Assess
    expect(again).toBe(true);
    expect(other).toBe(false);
    expect(await slotsOf(workspaceId)).toEqual([first]);
  });

  it('frees a slot when its run is removed; removing an unknown run changes nothing', async () => {
    // Prepare
    const workspaceId = workspace();
    const [first, second] = [run(), run()];
    await store.add(workspaceId, first, later, 1);

    // Act
    await store.remove(workspaceId, first);
    await store.remove(workspaceId, 'never-admitted');
    await store.remove(workspace(), first);
    const next = await store.add(workspaceId, second, later, 1);

    // Assess
    expect(next).toBe(true);
    expect(await slotsOf(workspaceId)).toEqual([second]);
  });

  it('prunes the expired slots only', async () => {
    // Prepare
    const workspaceId = workspace();
    const [expired, live] = [run(), run()];
    await store.add(workspaceId, expired, nowInMs - 1, 5);
    await store.add(workspaceId, live, later, 5);

    // Act
    const pruned = await store.prune(workspaceId, nowInMs);
    const none = await store.prune(workspace(), nowInMs);

    // Assess
    expect(pruned).toBe(1);
    expect(none).toBe(0);
    expect(await slotsOf(workspaceId)).toEqual([live]);
  });
});

describe('claimRunSlot on DynamoDB', () => {
  it('refuses a workspace at its cap with a 429 naming it, prunes an expired slot and admits in its place', async () => {
    // Prepare
    const workspaceId = workspace();
    const cap = defaultRunsInProgress.free;
    const deps = (atInMs: number) => ({
      slots: store,
      runsInProgress: defaultRunsInProgress,
      now: () => new Date(atInMs),
    });
    const claim = (atInMs: number, executionId = run()) =>
      claimRunSlot(deps(atInMs), { workspaceId, executionId, plan: 'free', lifetime: 'sync' });
    for (let index = 0; index < cap; index++) await claim(nowInMs + index * 60_000);

    // Act
    const refused = await claim(nowInMs + (cap - 1) * 60_000 + 1_000).catch((error: unknown) => error);
    const afterFirstExpired = await claim(nowInMs + 5 * 60_000 + 1).then(() => 'admitted');

    // Assess
    expect(refused).toMatchObject({
      statusCode: 429,
      code: 'CONCURRENCY_LIMIT_EXCEEDED',
      headers: { 'Retry-After': '5' },
    });
    expect((refused as Error).message).toContain(`${cap} runs in progress, the cap of the free plan`);
    expect(afterFirstExpired).toBe('admitted');
    expect(await slotsOf(workspaceId)).toHaveLength(cap);
  });
});
