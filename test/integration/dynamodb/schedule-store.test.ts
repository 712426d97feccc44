import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DynamoScheduleStore } from '../../../adapters/dynamodb/schedule-store';
import { DynamoWorkflowStore } from '../../../adapters/dynamodb/workflow-store';
import { newId } from '../../../core/ids';
import type { Schedule } from '../../../core/schedules/types';
import { type LocalDynamoDb, startLocalDynamoDb } from './local-dynamodb';

let dynamo: LocalDynamoDb;
let store: DynamoScheduleStore;

beforeAll(async () => {
  dynamo = await startLocalDynamoDb();
  store = new DynamoScheduleStore({ client: dynamo.client, tableName: dynamo.entitiesTable });
});

afterAll(async () => {
  await dynamo?.stop();
});

const aSchedule = (overrides: Partial<Schedule> = {}): Schedule => ({
  workflowId: newId('wf'),
  workspaceId: newId('ws'),
  cron: '0 9 * * 1-5',
  timezone: 'Europe/Berlin',
  input: { topic: 'news' },
  enabled: true,
  userId: newId('usr'),
  nextRunAt: '2031-01-06T08:00:00.000Z',
  createdAt: '2031-01-01T00:00:00.000Z',
  updatedAt: '2031-01-01T00:00:00.000Z',
  ...overrides,
});

/** Nested deeper than DynamoDB's 32 levels of maps. */
function deepInput(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: true };
  for (let level = 0; level < levels; level += 1) value = { next: value };
  return value;
}

async function clearSchedules() {
  for (const schedule of await store.listSchedulesByNextRun({ limit: 1000 })) {
    await store.deleteSchedule(schedule.workflowId);
  }
}

describe('DynamoScheduleStore', () => {
  beforeEach(async () => {
    await clearSchedules();
  });

  it('gives back the schedule it was given, input of any depth included', async () => {
    // Prepare
    const schedule = aSchedule({ input: deepInput(40), lastRunAt: '2030-12-31T08:00:00.000Z' });

    // Act
    await store.putSchedule(schedule);
    const found = await store.getSchedule(schedule.workflowId);

    // Assess
    expect(found).toEqual(schedule);
  });

  it('gives back a disabled schedule with nextRunAt null, and keeps it out of the index', async () => {
    // Prepare
    const schedule = aSchedule({ enabled: false, nextRunAt: null, rateMinutes: 5, cron: undefined });

    // Act
    await store.putSchedule(schedule);
    const found = await store.getSchedule(schedule.workflowId);
    const raw = await dynamo.rawItem(dynamo.entitiesTable, `WF#${schedule.workflowId}`, 'SCHEDULE');

    // Assess
    expect(found).toEqual(schedule);
    expect(found).not.toHaveProperty('cron');
    expect(raw?.gsi2pk).toBeUndefined();
    expect(raw?.gsi2sk).toBeUndefined();
  });

  it('indexes an enabled schedule by its next fire in the SCHEDULES partition of gsi2', async () => {
    // Prepare
    const schedule = aSchedule();

    // Act
    await store.putSchedule(schedule);
    const raw = await dynamo.rawItem(dynamo.entitiesTable, `WF#${schedule.workflowId}`, 'SCHEDULE');

    // Assess
    expect(raw?.gsi2pk).toEqual({ S: 'SCHEDULES' });
    expect(raw?.gsi2sk).toEqual({ S: `2031-01-06T08:00:00.000Z#${schedule.workflowId}` });
    expect(raw?.gsi1pk).toBeUndefined();
  });

  it('lists enabled schedules earliest first, up to an instant and a count', async () => {
    // Prepare
    const late = aSchedule({ nextRunAt: '2031-01-06T10:00:00.000Z' });
    const early = aSchedule({ nextRunAt: '2031-01-06T08:00:00.000Z' });
    const exact = aSchedule({ nextRunAt: '2031-01-06T09:00:00.000Z' });
    const disabled = aSchedule({ enabled: false, nextRunAt: null });
    for (const schedule of [late, early, exact, disabled]) await store.putSchedule(schedule);

    // Act
    const due = await store.listSchedulesByNextRun({ until: new Date('2031-01-06T09:00:00Z'), limit: 10 });
    const first = await store.listSchedulesByNextRun({ limit: 1 });
    const all = await store.listSchedulesByNextRun({ limit: 10 });

    // Assess
    expect(due.map((schedule) => schedule.workflowId)).toEqual([early.workflowId, exact.workflowId]);
    expect(first.map((schedule) => schedule.workflowId)).toEqual([early.workflowId]);
    expect(all.map((schedule) => schedule.workflowId)).toEqual([
      early.workflowId,
      exact.workflowId,
      late.workflowId,
    ]);
  });

  it('advances the next fire, and the index with it', async () => {
    // Prepare
    const schedule = aSchedule();
    await store.putSchedule(schedule);

    // Act
    const advanced = await store.advanceSchedule(schedule.workflowId, schedule, '2031-01-07T08:00:00.000Z');
    const raw = await dynamo.rawItem(dynamo.entitiesTable, `WF#${schedule.workflowId}`, 'SCHEDULE');

    // Assess
    expect(advanced).toBe(true);
    expect((await store.getSchedule(schedule.workflowId))?.nextRunAt).toBe('2031-01-07T08:00:00.000Z');
    expect(raw?.gsi2sk).toEqual({ S: `2031-01-07T08:00:00.000Z#${schedule.workflowId}` });
  });

  it('advances to no next fire by leaving the index', async () => {
    // Prepare
    const schedule = aSchedule();
    await store.putSchedule(schedule);

    // Act
    await store.advanceSchedule(schedule.workflowId, schedule, null);
    const listed = await store.listSchedulesByNextRun({ limit: 10 });

    // Assess
    expect((await store.getSchedule(schedule.workflowId))?.nextRunAt).toBeNull();
    expect(listed).toEqual([]);
  });

  it('does not advance a schedule that was put again, disabled or deleted since it was read', async () => {
    // Prepare
    const replaced = aSchedule();
    const disabled = aSchedule();
    const deleted = aSchedule();
    for (const schedule of [replaced, disabled, deleted]) await store.putSchedule(schedule);
    await store.putSchedule({ ...replaced, updatedAt: '2031-01-02T00:00:00.000Z' });
    await store.putSchedule({ ...disabled, enabled: false, nextRunAt: null });
    await store.deleteSchedule(deleted.workflowId);

    // Act
    const results = await Promise.all(
      [replaced, disabled, deleted].map((schedule) =>
        store.advanceSchedule(schedule.workflowId, schedule, '2031-01-07T08:00:00.000Z'),
      ),
    );

    // Assess
    expect(results).toEqual([false, false, false]);
    expect((await store.getSchedule(replaced.workflowId))?.nextRunAt).toBe('2031-01-06T08:00:00.000Z');
    expect(await store.getSchedule(deleted.workflowId)).toBeUndefined();
  });

  it('notes a fire and its error, and clears the error with the next fire that started a run', async () => {
    // Prepare
    const schedule = aSchedule();
    await store.putSchedule(schedule);

    // Act
    await store.recordFire(schedule.workflowId, { scheduledTime: '2031-01-06T08:00:00.000Z', error: 'no' });
    const failed = await store.getSchedule(schedule.workflowId);
    await store.recordFire(schedule.workflowId, { scheduledTime: '2031-01-07T08:00:00.000Z' });
    const succeeded = await store.getSchedule(schedule.workflowId);

    // Assess
    expect(failed).toMatchObject({ lastRunAt: '2031-01-06T08:00:00.000Z', lastError: 'no' });
    expect(succeeded?.lastRunAt).toBe('2031-01-07T08:00:00.000Z');
    expect(succeeded?.lastError).toBeUndefined();
  });

  it('ignores a fire older than, or the same as, the one noted', async () => {
    // Prepare
    const schedule = aSchedule({ lastRunAt: '2031-01-07T08:00:00.000Z' });
    await store.putSchedule(schedule);

    // Act
    await store.recordFire(schedule.workflowId, { scheduledTime: '2031-01-06T08:00:00.000Z', error: 'late' });
    await store.recordFire(schedule.workflowId, {
      scheduledTime: '2031-01-07T08:00:00.000Z',
      error: 'again',
    });

    // Assess
    const found = await store.getSchedule(schedule.workflowId);
    expect(found?.lastRunAt).toBe('2031-01-07T08:00:00.000Z');
    expect(found?.lastError).toBeUndefined();
  });

  it('notes nothing for a schedule that is gone', async () => {
    // Prepare
    const workflowId = newId('wf');

    // Act
    await store.recordFire(workflowId, { scheduledTime: '2031-01-06T08:00:00.000Z' });

    // Assess
    expect(await store.getSchedule(workflowId)).toBeUndefined();
  });

  it('lives beside its workflow without changing it, and deleting either leaves the other', async () => {
    // Prepare
    const workflows = new DynamoWorkflowStore({ client: dynamo.client, tableName: dynamo.entitiesTable });
    const schedule = aSchedule();
    await workflows.putWorkflow({
      id: schedule.workflowId,
      workspaceId: schedule.workspaceId,
      folderId: null,
      name: 'Flow',
      description: '',
      state: { blocks: {}, edges: [], loops: {}, parallels: {} },
      stateHash: 'hash',
      isDeployed: false,
      revision: 1,
      createdAt: '2031-01-01T00:00:00.000Z',
      updatedAt: '2031-01-01T00:00:00.000Z',
    });

    // Act
    await store.putSchedule(schedule);
    const listed = await workflows.listWorkflows(schedule.workspaceId);
    await store.deleteSchedule(schedule.workflowId);
    await store.deleteSchedule(schedule.workflowId);

    // Assess
    expect(listed.map((workflow) => workflow.id)).toEqual([schedule.workflowId]);
    expect(await workflows.getWorkflow(schedule.workflowId)).toBeDefined();
    expect(await store.getSchedule(schedule.workflowId)).toBeUndefined();
  });
});
