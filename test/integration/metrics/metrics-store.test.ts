import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoMetricsStore, metricsRetentionInDays } from '../../../adapters/dynamodb/metrics-store';
import { newId } from '../../../core/ids';
import { binOf } from '../../../core/metrics/histogram';
import { maxWorkflowsPerHour, type RunOutcome } from '../../../core/metrics/types';
import { type LocalDynamoDb, startLocalDynamoDb } from '../dynamodb/local-dynamodb';

const metricsTable = 'metrics';
let dynamo: LocalDynamoDb;
let store: DynamoMetricsStore;

beforeAll(async () => {
  dynamo = await startLocalDynamoDb();
  store = new DynamoMetricsStore({ client: dynamo.client, tableName: metricsTable });
});
afterAll(async () => {
  await dynamo?.stop();
});

const hour = '2026-11-28T14:00:00.000Z';
const nextHour = '2026-11-28T15:00:00.000Z';

function run(workspaceId: string, overrides: Partial<RunOutcome> = {}): RunOutcome {
  return {
    workspaceId,
    workflowId: 'wf_a',
    endedAt: '2026-11-28T14:10:00.000Z',
    failed: false,
    durationInMs: 100,
    costInUsd: 0.001,
    ...overrides,
  };
}

/** Counts the UpdateItem calls the client sends while `act` runs. */
async function countingUpdates(act: () => Promise<unknown>): Promise<number> {
  let updates = 0;
  const name = `countUpdates${newId('m')}`;
  dynamo.client.middlewareStack.add(
    (next) => async (args) => {
      const { headers } = args.request as { headers: Record<string, string> };
      if (headers['x-amz-target'] === 'DynamoDB_20120810.UpdateItem') updates++;
      return next(args);
    },
    { step: 'finalizeRequest', name },
  );
  try {
    await act();
  } finally {
    dynamo.client.middlewareStack.remove(name);
  }
  return updates;
}

describe('DynamoMetricsStore', () => {
  it('adds 60 concurrent runs to one hour with one UpdateItem each and loses none', async () => {
    // Prepare
    const workspaceId = newId('ws');
    const runs = Array.from({ length: 60 }, (_, index) =>
      run(workspaceId, {
        workflowId: index % 3 === 0 ? 'wf_fails' : 'wf_ok',
        failed: index % 3 === 0,
        durationInMs: index % 2 === 0 ? 100 : 5_000,
        costInUsd: 0.25,
      }),
    );

    // Act
    const updates = await countingUpdates(() => Promise.all(runs.map((outcome) => store.recordRun(outcome))));

    // Assess
    expect(updates).toBe(60);
    const [counters, ...others] = await store.readHours(workspaceId, hour, nextHour);
    expect(others).toEqual([]);
    expect(counters).toEqual({
      hour,
      runs: 60,
      errors: 20,
      totalDurationInMs: 30 * 100 + 30 * 5_000,
      costInUsd: 15,
      durations: { [binOf(100)]: 30, [binOf(5_000)]: 30 },
      workflows: { wf_fails: { runs: 20, errors: 20 }, wf_ok: { runs: 40, errors: 0 } },
      otherWorkflows: { runs: 0, errors: 0 },
    });
  });

  it(`counts at most ${maxWorkflowsPerHour} workflows one by one in an hour, the rest in the totals only`, async () => {
    // Prepare
    const workspaceId = newId('ws');
    const workflowIds = Array.from({ length: maxWorkflowsPerHour + 2 }, (_, index) => `wf_${index}`);
    for (const workflowId of workflowIds.slice(0, maxWorkflowsPerHour))
      await store.recordRun(run(workspaceId, { workflowId }));

    // Act
    await store.recordRun(run(workspaceId, { workflowId: 'wf_late_1', failed: true }));
    await store.recordRun(run(workspaceId, { workflowId: 'wf_late_2' }));
    await store.recordRun(run(workspaceId, { workflowId: 'wf_0', failed: true }));

    // Assess
    const [counters] = await store.readHours(workspaceId, hour, nextHour);
    expect(counters?.runs).toBe(maxWorkflowsPerHour + 3);
    expect(counters?.errors).toBe(2);
    expect(Object.keys(counters?.workflows ?? {})).toHaveLength(maxWorkflowsPerHour);
    expect(counters?.workflows.wf_0).toEqual({ runs: 2, errors: 1 });
    expect(counters?.otherWorkflows).toEqual({ runs: 2, errors: 1 });
  });

  it("reads the workspace's hours in [from, to) in time order, and none of another workspace", async () => {
    // Prepare
    const workspaceId = newId('ws');
    for (const endedAt of [
      '2026-11-28T16:59:59.999Z',
      '2026-11-28T13:00:00.000Z',
      '2026-11-28T15:30:00.000Z',
    ])
      await store.recordRun(run(workspaceId, { endedAt }));
    await store.recordRun(run(newId('ws'), { endedAt: '2026-11-28T15:30:00.000Z' }));

    // Act
    const hours = await store.readHours(workspaceId, '2026-11-28T13:00:00.000Z', '2026-11-28T16:00:00.000Z');

    // Assess
    expect(hours.map((counters) => [counters.hour, counters.runs])).toEqual([
      ['2026-11-28T13:00:00.000Z', 1],
      ['2026-11-28T15:00:00.000Z', 1],
    ]);
  });

  it(`keeps an hour ${metricsRetentionInDays} days (TTL) and reads an expired hour as absent`, async () => {
    // Prepare
    const workspaceId = newId('ws');
    await store.recordRun(run(workspaceId));
    const later = new DynamoMetricsStore({
      client: dynamo.client,
      tableName: metricsTable,
      now: () => new Date(Date.parse(hour) + (metricsRetentionInDays * 86_400 + 1) * 1000),
    });

    // Act
    const raw = await dynamo.rawItem(metricsTable, `WS#${workspaceId}`, hour);
    const expired = await later.readHours(workspaceId, hour, nextHour);

    // Assess
    expect(Number(raw?.ttl?.N)).toBe(Date.parse(hour) / 1000 + metricsRetentionInDays * 86_400);
    expect(expired).toEqual([]);
  });
});
