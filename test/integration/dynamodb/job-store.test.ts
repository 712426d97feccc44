import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoJobStore, requestBlobKey } from '../../../adapters/dynamodb/job-store';
import { INLINE_LIMIT_IN_BYTES } from '../../../adapters/dynamodb/dynamo-table';
import { newId } from '../../../core/ids';
import type { Job } from '../../../core/jobs/types';
import type { ExecutionRequest } from '../../../core/runs/types';
import { type LocalDynamoDb, MemoryBlobStore, startLocalDynamoDb } from './local-dynamodb';

let dynamo: LocalDynamoDb;
let blobStore: MemoryBlobStore;
let nowInMs = Date.parse('2026-03-01T12:00:00.000Z');
let store: DynamoJobStore;

beforeAll(async () => {
  dynamo = await startLocalDynamoDb();
  blobStore = new MemoryBlobStore();
  store = new DynamoJobStore({
    client: dynamo.client,
    tableName: dynamo.executionsTable,
    blobStore,
    now: () => new Date(nowInMs),
  });
});

afterAll(async () => {
  await dynamo?.stop();
});

function aJob(overrides: Partial<Job> = {}): Job {
  return {
    taskId: newId('task'),
    workspaceId: 'ws-1',
    workflowId: 'wf-1',
    userId: 'user-1',
    status: 'queued',
    createdAt: new Date(nowInMs).toISOString(),
    expiresAt: Math.floor(nowInMs / 1000) + 3600,
    ...overrides,
  };
}

function requestOf(job: Job, input: Record<string, unknown> = { name: 'ada' }): ExecutionRequest {
  return {
    executionId: job.taskId,
    workflowId: job.workflowId,
    workspaceId: job.workspaceId,
    userId: job.userId,
    deploymentVersion: 1,
    trigger: 'api',
    input,
    startedAt: job.createdAt,
    mode: 'async',
  };
}

describe('DynamoJobStore', () => {
  it('stores a job with its request and reads both back', async () => {
    // Prepare
    const job = aJob();

    // Act
    const created = await store.createJob(job, requestOf(job));

    // Assess
    expect(created).toBe(true);
    expect(await store.getJob(job.taskId)).toEqual(job);
    expect(await store.getJobWithRequest(job.taskId)).toEqual({ job, request: requestOf(job) });
  });

  it('reads several jobs with their requests in one call, leaving out missing and expired ones', async () => {
    // Prepare
    const small = aJob();
    const large = aJob();
    const expired = aJob({ expiresAt: Math.floor(nowInMs / 1000) - 1 });
    const largeInput = { text: 'x'.repeat(INLINE_LIMIT_IN_BYTES + 1) };
    await store.createJob(small, requestOf(small));
    await store.createJob(large, requestOf(large, largeInput));
    await store.createJob(expired, requestOf(expired));

    // Act
    const found = await store.getJobsWithRequests([
      small.taskId,
      large.taskId,
      expired.taskId,
      'task_none',
      small.taskId,
    ]);

    // Assess
    expect([...found.keys()].sort()).toEqual([small.taskId, large.taskId].sort());
    expect(found.get(small.taskId)).toEqual({ job: small, request: requestOf(small) });
    expect(found.get(large.taskId)?.request.input).toEqual(largeInput);
  });

  it('refuses a second job with the same task id and keeps the first', async () => {
    // Prepare
    const job = aJob();
    await store.createJob(job, requestOf(job));

    // Act
    const again = await store.createJob({ ...job, userId: 'someone-else' }, requestOf(job, { name: 'eve' }));

    // Assess
    expect(again).toBe(false);
    expect((await store.getJob(job.taskId))?.userId).toBe('user-1');
    expect((await store.getJobWithRequest(job.taskId))?.request.input).toEqual({ name: 'ada' });
  });

  it('keeps a request too large for the item in the blob store', async () => {
    // Prepare
    const job = aJob();
    const input = { text: 'x'.repeat(INLINE_LIMIT_IN_BYTES + 1) };

    // Act
    await store.createJob(job, requestOf(job, input));

    // Assess
    expect(blobStore.objects.has(requestBlobKey(job.taskId))).toBe(true);
    expect((await store.getJobWithRequest(job.taskId))?.request.input).toEqual(input);
  });

  it('moves a job only from the statuses it is allowed to leave', async () => {
    // Prepare
    const job = aJob();
    await store.createJob(job, requestOf(job));

    // Act
    const processing = await store.updateJob(job.taskId, ['queued'], {
      status: 'processing',
      startedAt: 'a',
    });
    const twice = await store.updateJob(job.taskId, ['queued'], { status: 'processing', startedAt: 'b' });
    const done = await store.updateJob(job.taskId, ['queued', 'processing'], { status: 'completed' });
    const cancelled = await store.updateJob(job.taskId, ['queued', 'processing'], { status: 'cancelled' });

    // Assess
    expect(processing).toMatchObject({ status: 'processing', startedAt: 'a' });
    expect(twice).toBeUndefined();
    expect(done?.status).toBe('completed');
    expect(cancelled).toBeUndefined();
    expect((await store.getJob(job.taskId))?.status).toBe('completed');
  });

  it('moves a job without reading it back, saying whether it moved', async () => {
    // Prepare
    const job = aJob();
    await store.createJob(job, requestOf(job));

    // Act
    const processing = await store.moveJob(job.taskId, ['queued'], { status: 'processing', startedAt: 'a' });
    const twice = await store.moveJob(job.taskId, ['queued'], { status: 'processing', startedAt: 'b' });
    const missing = await store.moveJob('no-such-task', ['queued'], { status: 'processing' });

    // Assess
    expect([processing, twice, missing]).toEqual([true, false, false]);
    expect(await store.getJob(job.taskId)).toMatchObject({ status: 'processing', startedAt: 'a' });
    expect((await store.getJobWithRequest(job.taskId))?.request).toEqual(requestOf(job));
  });

  it('treats an expired job as gone, for reads and for moves', async () => {
    // Prepare
    const job = aJob({ expiresAt: Math.floor(nowInMs / 1000) + 60 });
    await store.createJob(job, requestOf(job));

    // Act
    nowInMs += 61_000;
    const read = await store.getJob(job.taskId);
    const moved = await store.updateJob(job.taskId, ['queued'], { status: 'processing' });
    const movedOnly = await store.moveJob(job.taskId, ['queued'], { status: 'processing' });

    // Assess
    expect(read).toBeUndefined();
    expect(moved).toBeUndefined();
    expect(movedOnly).toBe(false);
  });

  it('averages recent run durations of a workflow, keeping a bounded sample', async () => {
    // Prepare
    const workflowId = newId('wf');
    const before = await store.recentDurationInMs(workflowId);

    // Act
    for (let run = 0; run < 100; run++) await store.recordDuration(workflowId, `task-old-${run}`, 10_000);
    for (let run = 0; run < 100; run++) await store.recordDuration(workflowId, `task-new-${run}`, 200);

    // Assess: the later runs have replaced every sample of the earlier ones
    expect(before).toBeUndefined();
    expect(await store.recentDurationInMs(workflowId)).toBe(200);
  });

  it('estimates from the first recorded run on', async () => {
    const workflowId = newId('wf');
    await store.recordDuration(workflowId, 'task-1', 300);
    await store.recordDuration(workflowId, 'task-2', 500);
    const estimate = await store.recentDurationInMs(workflowId);
    expect([300, 400]).toContain(estimate);
  });
});
