import { afterEach, beforeEach, describe, expect, it, type Mock, vi } from 'vitest';
import { ConflictError, NotFoundError } from '../../../core/errors';
import type { Principal } from '../../../core/identity/service';
import type { IdentityStore } from '../../../core/identity/types';
import {
  cancelJob,
  durationSampler,
  enqueueRun,
  failDeadLetteredJob,
  failUnsettledJob,
  jobStatusView,
  queuedJob,
  settledJob,
  settledRunFrom,
  settleJob,
  startQueuedJob,
} from '../../../core/jobs/service';
import { handleJobMessage, handleJobMessages } from '../../../core/jobs/worker';
import type { Job, JobMessage, JobStatus, JobStore, JobUpdate, SettledRun } from '../../../core/jobs/types';
import type { ExecutionLogEntry } from '../../../core/runs/log';
import type { ExecutionRequest, ExecutionStarter } from '../../../core/runs/types';

/** The JobStore contract in memory: conditional moves, as the DynamoDB adapter makes them. */
class MemoryJobStore implements JobStore {
  readonly jobs = new Map<string, Job>();
  readonly requests = new Map<string, ExecutionRequest>();
  readonly durations: number[] = [];
  readonly batchReads: string[][] = [];
  async createJob(job: Job, request: ExecutionRequest) {
    if (this.jobs.has(job.taskId)) return false;
    this.jobs.set(job.taskId, { ...job });
    this.requests.set(job.taskId, request);
    return true;
  }
  async getJob(taskId: string) {
    const job = this.jobs.get(taskId);
    return job ? { ...job } : undefined;
  }
  async getJobWithRequest(taskId: string) {
    const job = this.jobs.get(taskId);
    const request = this.requests.get(taskId);
    return job && request ? { job: { ...job }, request } : undefined;
  }
  async getJobsWithRequests(taskIds: readonly string[]) {
    this.batchReads.push([...taskIds]);
    const found = await Promise.all(taskIds.map((taskId) => this.getJobWithRequest(taskId)));
    return new Map(found.flatMap((entry) => (entry ? [[entry.job.taskId, entry] as const] : [])));
  }
  async updateJob(taskId: string, from: readonly JobStatus[], update: JobUpdate) {
    const job = this.jobs.get(taskId);
    if (!job || !from.includes(job.status)) return undefined;
    Object.assign(job, Object.fromEntries(Object.entries(update).filter(([, v]) => v !== undefined)));
    return { ...job };
  }
  async moveJob(taskId: string, from: readonly JobStatus[], update: JobUpdate) {
    return (await this.updateJob(taskId, from, update)) !== undefined;
  }
  async recordDuration(_workflowId: string, _taskId: string, durationInMs: number) {
    this.durations.push(durationInMs);
  }
  async recentDurationInMs() {
    return this.durations.length
      ? this.durations.reduce((a, b) => a + b, 0) / this.durations.length
      : undefined;
  }
}

const principal = { user: { id: 'user-1' }, apiKeyId: 'key-1' } as Principal;
const member = {
  getWorkspaceMembership: async (workspaceId: string, userId: string) =>
    workspaceId === 'ws-1' && userId === 'user-1'
      ? { workspaceId, userId, permissions: 'write' as const }
      : undefined,
  // Workspaces of no organization: access is the membership alone.
  getWorkspace: async () => undefined,
} as unknown as IdentityStore;

function aRequest(executionId = 'task-1'): ExecutionRequest {
  return {
    executionId,
    workflowId: 'wf-1',
    workspaceId: 'ws-1',
    userId: 'user-1',
    deploymentVersion: 1,
    trigger: 'api',
    input: { name: 'ada' },
    startedAt: '2026-03-01T12:00:00.000Z',
    mode: 'async',
  };
}

let jobs: MemoryJobStore;
/** The runs' log entries, by task id: what Finalize writes once a run has ended. */
let settledRuns: Map<string, SettledRun>;
const settledRunOf = async (taskId: string) => settledRuns.get(taskId);
let sent: JobMessage[];
type Runs = Pick<ExecutionStarter, 'startAsync' | 'stopAsync'>;
let runs: { startAsync: Mock<Runs['startAsync']>; stopAsync: Mock<Runs['stopAsync']> };
const now = () => new Date();

beforeEach(() => {
  vi.useFakeTimers({ now: Date.parse('2026-03-01T12:00:00.000Z') });
  jobs = new MemoryJobStore();
  settledRuns = new Map();
  sent = [];
  runs = {
    startAsync: vi.fn<Runs['startAsync']>(async () => undefined),
    stopAsync: vi.fn<Runs['stopAsync']>(async () => undefined),
  };
});
afterEach(() => {
  vi.useRealTimers();
});

const enqueueDeps = () => ({
  jobs,
  queue: { send: async (message: JobMessage) => void sent.push(message) },
  now,
  retentionInSeconds: 3600,
});
const startDeps = () => ({ jobs, runs, now });

const queuedJobOf = (taskId: string) => queuedJob(aRequest(taskId), now(), 3600);

/** What Finalize does for an async run: its log entry is written, then its duration recorded. */
async function finalize(run: Partial<SettledRun> & { success: boolean }, taskId = 'task-1') {
  const settled = { startedAt: '2026-03-01T12:00:00.000Z', endedAt: now().toISOString(), ...run };
  settledRuns.set(taskId, settled);
  await settleJob({ jobs, now }, aRequest(taskId), {
    durationInMs: Date.parse(settled.endedAt) - Date.parse(settled.startedAt),
  });
}

describe('enqueueRun', () => {
  it('stores the job as queued, sends its message and answers the asynchronous result', async () => {
    // Act
    const result = await enqueueRun(enqueueDeps(), { ...aRequest(), mode: 'sync' });

    // Assess
    expect(result).toEqual({
      success: true,
      taskId: 'task-1',
      status: 'queued',
      createdAt: '2026-03-01T12:00:00.000Z',
      links: { status: '/api/jobs/task-1' },
    });
    expect(jobs.jobs.get('task-1')).toMatchObject({
      status: 'queued',
      expiresAt: Date.parse('2026-03-01T13:00:00Z') / 1000,
    });
    expect(jobs.requests.get('task-1')?.mode).toBe('async');
    expect(sent).toEqual([{ kind: 'job', taskId: 'task-1' }]);
  });

  it('fails the job when its message cannot be sent, and says so to the caller', async () => {
    // Prepare
    const deps = { ...enqueueDeps(), queue: { send: async () => Promise.reject(new Error('queue down')) } };

    // Act
    const accepting = enqueueRun(deps, aRequest());

    // Assess
    await expect(accepting).rejects.toThrow('queue down');
    expect(jobs.jobs.get('task-1')).toMatchObject({ status: 'failed', error: 'The run could not be queued' });
  });
});

describe('startQueuedJob', () => {
  it('starts the run named by the task id and moves the job to processing', async () => {
    // Prepare
    await enqueueRun(enqueueDeps(), aRequest());
    vi.advanceTimersByTime(250);

    // Act
    const outcome = await startQueuedJob(startDeps(), 'task-1');

    // Assess
    expect(outcome).toBe('started');
    expect(runs.startAsync).toHaveBeenCalledWith({ ...aRequest(), startedAt: '2026-03-01T12:00:00.250Z' });
    expect(jobs.jobs.get('task-1')).toMatchObject({
      status: 'processing',
      startedAt: '2026-03-01T12:00:00.250Z',
    });
  });

  it('starts nothing for a redelivered message of a job that has started', async () => {
    // Prepare
    await enqueueRun(enqueueDeps(), aRequest());
    await startQueuedJob(startDeps(), 'task-1');

    // Act
    const again = await startQueuedJob(startDeps(), 'task-1');

    // Assess
    expect(again).toBe('skipped');
    expect(runs.startAsync).toHaveBeenCalledTimes(1);
  });

  it('leaves the job queued when the start fails, so the next delivery tries again', async () => {
    // Prepare
    await enqueueRun(enqueueDeps(), aRequest());
    runs.startAsync.mockRejectedValueOnce(new Error('throttled'));

    // Act
    const failing = startQueuedJob(startDeps(), 'task-1');

    // Assess
    await expect(failing).rejects.toThrow('throttled');
    expect(jobs.jobs.get('task-1')?.status).toBe('queued');
    expect(await startQueuedJob(startDeps(), 'task-1')).toBe('started');
  });

  it('stops the run again when the job was cancelled while it was being started', async () => {
    // Prepare
    await enqueueRun(enqueueDeps(), aRequest());
    runs.startAsync.mockImplementationOnce(async () => {
      await jobs.updateJob('task-1', ['queued'], { status: 'cancelled' });
    });

    // Act
    await startQueuedJob(startDeps(), 'task-1');

    // Assess
    expect(runs.stopAsync).toHaveBeenCalledWith('task-1', 'Cancelled by the user');
    expect(jobs.jobs.get('task-1')?.status).toBe('cancelled');
  });

  it('skips a job that is gone', async () => {
    expect(await startQueuedJob(startDeps(), 'no-such-task')).toBe('skipped');
    expect(runs.startAsync).not.toHaveBeenCalled();
  });
});

describe('handleJobMessage for a schedule fire', () => {
  it('turns one fire delivered twice into one job and one run', async () => {
    // Prepare
    const fire = { kind: 'schedule' as const, workflowId: 'wf-1', scheduledTime: '2026-03-01T12:00:00Z' };
    const deps = { ...startDeps(), retentionInSeconds: 3600, fireRequest: async () => aRequest('sched-1') };

    // Act
    const first = await handleJobMessage(deps, fire);
    const second = await handleJobMessage(deps, fire);

    // Assess
    expect([first, second]).toEqual(['started', 'skipped']);
    expect(runs.startAsync).toHaveBeenCalledTimes(1);
    expect(jobs.jobs.get('sched-1')?.status).toBe('processing');
  });

  it('starts nothing when the schedule no longer applies', async () => {
    const deps = { ...startDeps(), retentionInSeconds: 3600, fireRequest: async () => undefined };
    const outcome = await handleJobMessage(deps, {
      kind: 'schedule',
      workflowId: 'wf-1',
      scheduledTime: 'x',
    });
    expect(outcome).toBe('skipped');
    expect(jobs.jobs.size).toBe(0);
  });
});

describe('handleJobMessages', () => {
  const workerDeps = () => ({
    ...startDeps(),
    retentionInSeconds: 3600,
    fireRequest: async () => aRequest('sched-1'),
  });

  it("reads a batch's jobs in one call and starts each queued one", async () => {
    // Prepare
    await enqueueRun(enqueueDeps(), aRequest('task-1'));
    await enqueueRun(enqueueDeps(), aRequest('task-2'));
    await jobs.updateJob('task-2', ['queued'], { status: 'cancelled' });
    const bodies = ['task-1', 'task-2', 'no-such-task'].map((taskId) =>
      JSON.stringify({ kind: 'job', taskId }),
    );

    // Act
    const results = await handleJobMessages(workerDeps(), bodies);

    // Assess
    expect(results.map((result) => result.status === 'fulfilled' && result.value)).toEqual([
      'started',
      'skipped',
      'skipped',
    ]);
    expect(jobs.batchReads).toEqual([['task-1', 'task-2', 'no-such-task']]);
    expect(runs.startAsync).toHaveBeenCalledTimes(1);
    expect(jobs.jobs.get('task-1')?.status).toBe('processing');
  });

  it('fails only the messages that cannot be handled; a schedule fire in the batch starts too', async () => {
    // Prepare
    await enqueueRun(enqueueDeps(), aRequest('task-1'));
    const fire = { kind: 'schedule', workflowId: 'wf-1', scheduledTime: '2026-03-01T12:00:00Z' };
    const bodies = ['not json', JSON.stringify({ kind: 'job', taskId: 'task-1' }), JSON.stringify(fire)];

    // Act
    const results = await handleJobMessages(workerDeps(), bodies);

    // Assess
    expect(results[0]).toMatchObject({ status: 'rejected', reason: { message: 'Job message is not JSON' } });
    expect(results.slice(1)).toEqual([
      { status: 'fulfilled', value: 'started' },
      { status: 'fulfilled', value: 'started' },
    ]);
    expect(jobs.batchReads).toEqual([['task-1']]);
  });

  it('fails the job messages of a batch whose read failed, so they are delivered again', async () => {
    // Prepare
    await enqueueRun(enqueueDeps(), aRequest('task-1'));
    vi.spyOn(jobs, 'getJobsWithRequests').mockRejectedValueOnce(new Error('table unavailable'));

    // Act
    const results = await handleJobMessages(workerDeps(), [
      JSON.stringify({ kind: 'job', taskId: 'task-1' }),
    ]);

    // Assess
    expect(results).toEqual([{ status: 'rejected', reason: new Error('table unavailable') }]);
    expect(jobs.jobs.get('task-1')?.status).toBe('queued');
    expect(runs.startAsync).not.toHaveBeenCalled();
  });
});

describe('settleJob', () => {
  it('records the duration of a run whose log entry settles its job, and writes no job', async () => {
    // Prepare
    await enqueueRun(enqueueDeps(), aRequest());
    await startQueuedJob(startDeps(), 'task-1');
    const stored = await jobs.getJob('task-1');

    // Act
    await settleJob({ jobs, now }, aRequest(), { durationInMs: 1200 });

    // Assess
    expect(jobs.durations).toEqual([1200]);
    expect(await jobs.getJob('task-1')).toEqual(stored);
  });

  it('leaves the duration out when the sampler does', async () => {
    await settleJob({ jobs, now, recordsDurationOf: () => false }, aRequest(), { durationInMs: 5 });
    expect(jobs.durations).toEqual([]);
  });
});

describe('settledJob', () => {
  it('completes a processing job whose run has ended well', () => {
    const processing = { ...queuedJobOf('task-1'), status: 'processing' as const, startedAt: 's' };
    expect(settledJob(processing, { success: true, startedAt: 's', endedAt: 'e' })).toMatchObject({
      status: 'completed',
      startedAt: 's',
      completedAt: 'e',
    });
  });

  it('fails a queued job whose run failed, with the run error or a plain one', () => {
    const queued = queuedJobOf('task-1');
    const run = { success: false, startedAt: 's', endedAt: 'e' };
    expect(settledJob(queued, { ...run, error: 'boom' })).toMatchObject({ status: 'failed', error: 'boom' });
    expect(settledJob(queued, run)).toMatchObject({ status: 'failed', error: 'The run failed' });
  });

  it('keeps a status the job item holds as finished, and a job whose run has not ended', () => {
    const cancelled = { ...queuedJobOf('task-1'), status: 'cancelled' as const, error: 'Cancelled' };
    expect(settledJob(cancelled, { success: true, startedAt: 's', endedAt: 'e' })).toEqual(cancelled);
    expect(settledJob(queuedJobOf('task-1'), undefined)).toEqual(queuedJobOf('task-1'));
  });
});

describe('durationSampler', () => {
  it('picks at most one run per workflow per interval, each workflow on its own', () => {
    // Prepare
    const sample = durationSampler(1000, Date.now);

    // Act
    const first = [sample('wf-1'), sample('wf-1'), sample('wf-2')];
    vi.advanceTimersByTime(999);
    const beforeTheInterval = sample('wf-1');
    vi.advanceTimersByTime(1);
    const afterTheInterval = [sample('wf-1'), sample('wf-1')];

    // Assess
    expect(first).toEqual([true, false, true]);
    expect(beforeTheInterval).toBe(false);
    expect(afterTheInterval).toEqual([true, false]);
  });

  it('forgets the workflows recorded longest ago beyond its capacity', () => {
    // Prepare
    const sample = durationSampler(1000, Date.now, 2);
    sample('wf-1');
    sample('wf-2');

    // Act
    sample('wf-3');

    // Assess: wf-1 was forgotten, so it is picked again; wf-3 is still remembered
    expect(sample('wf-1')).toBe(true);
    expect(sample('wf-3')).toBe(false);
  });
});

describe('cancelJob', () => {
  const cancelDeps = () => ({ identity: member, jobs, runs, settledRunOf, slots, now });

  it("gives back the slot of the cancelled run among its workspace's runs in progress", async () => {
    // Prepare
    slots.released = [];
    await enqueueRun(enqueueDeps(), aRequest());

    // Act
    await cancelJob(cancelDeps(), principal, 'task-1');

    // Assess
    expect(slots.released).toEqual([['ws-1', 'task-1']]);
  });

  it('marks a processing job cancelled and stops its run', async () => {
    // Prepare
    await enqueueRun(enqueueDeps(), aRequest());
    await startQueuedJob(startDeps(), 'task-1');

    // Act
    const job = await cancelJob(cancelDeps(), principal, 'task-1');

    // Assess
    expect(job).toMatchObject({ status: 'cancelled', completedAt: '2026-03-01T12:00:00.000Z' });
    expect(runs.stopAsync).toHaveBeenCalledWith('task-1', 'Cancelled by the user');
  });

  it('refuses to cancel a finished job with a conflict', async () => {
    await enqueueRun(enqueueDeps(), aRequest());
    await finalize({ success: true });
    await expect(cancelJob(cancelDeps(), principal, 'task-1')).rejects.toThrow(
      'Job task-1 is completed and cannot be cancelled',
    );
    expect(runs.stopAsync).not.toHaveBeenCalled();
    expect(jobs.jobs.get('task-1')?.status).toBe('queued');
  });

  it('refuses to cancel a job failed as stored with a conflict', async () => {
    await enqueueRun(enqueueDeps(), aRequest());
    await failDeadLetteredJob({ jobs, settledRunOf, slots, now }, 'task-1', 5);
    await expect(cancelJob(cancelDeps(), principal, 'task-1')).rejects.toThrow(ConflictError);
    expect(runs.stopAsync).not.toHaveBeenCalled();
  });

  it('keeps the job cancelled when its run ends after the cancel', async () => {
    // Prepare
    await enqueueRun(enqueueDeps(), aRequest());
    await startQueuedJob(startDeps(), 'task-1');
    await cancelJob(cancelDeps(), principal, 'task-1');

    // Act
    await finalize({ success: true });
    const view = await jobStatusView({ jobs, now, settledRunOf }, (await jobs.getJob('task-1')) as Job);

    // Assess
    expect(view).toMatchObject({ success: true, status: 'cancelled', error: 'Cancelled' });
    expect(view.output).toBeUndefined();
  });

  it('answers not found for a job of another workspace', async () => {
    await enqueueRun(enqueueDeps(), { ...aRequest(), workspaceId: 'ws-2' });
    await expect(cancelJob(cancelDeps(), principal, 'task-1')).rejects.toThrow(NotFoundError);
  });
});

/** The workspaces' runs in progress, as the fail use cases give slots back. */
const slots = {
  released: [] as [string, string][],
  async remove(workspaceId: string, executionId: string) {
    this.released.push([workspaceId, executionId]);
  },
};

describe('failDeadLetteredJob', () => {
  beforeEach(() => {
    slots.released = [];
  });

  it("gives back the slot of the run among its workspace's runs in progress", async () => {
    // Prepare
    await enqueueRun(enqueueDeps(), aRequest());

    // Act
    await failDeadLetteredJob({ jobs, settledRunOf, slots, now }, 'task-1', 5);

    // Assess
    expect(slots.released).toEqual([['ws-1', 'task-1']]);
  });
  it('fails a job that never started, saying how often it was tried', async () => {
    await enqueueRun(enqueueDeps(), aRequest());
    await failDeadLetteredJob({ jobs, settledRunOf, slots, now }, 'task-1', 5);
    expect(jobs.jobs.get('task-1')).toMatchObject({
      status: 'failed',
      error: 'The run could not be started after 5 attempts',
    });
  });

  it('leaves a job whose run has ended after all to its log entry', async () => {
    await enqueueRun(enqueueDeps(), aRequest());
    await finalize({ success: true });
    await failDeadLetteredJob({ jobs, settledRunOf, slots, now }, 'task-1', 5);
    expect(jobs.jobs.get('task-1')?.status).toBe('queued');
  });
});

describe('failUnsettledJob', () => {
  beforeEach(() => {
    slots.released = [];
  });

  it('gives back the slot of a run that broke outside Finalize, and keeps that of a settled one', async () => {
    // Prepare
    await enqueueRun(enqueueDeps(), aRequest());
    await startQueuedJob(startDeps(), 'task-1');

    // Act
    await failUnsettledJob({ jobs, settledRunOf, slots, now }, 'task-1', 'The run ended timed out');
    await finalize({ success: true });
    await failUnsettledJob({ jobs, settledRunOf, slots, now }, 'task-1', 'The run ended timed out');

    // Assess
    expect(slots.released).toEqual([['ws-1', 'task-1']]);
  });
  it('fails a processing job whose run broke before its log entry was written', async () => {
    await enqueueRun(enqueueDeps(), aRequest());
    await startQueuedJob(startDeps(), 'task-1');
    await failUnsettledJob({ jobs, settledRunOf, slots, now }, 'task-1', 'The run ended failed');
    expect(jobs.jobs.get('task-1')).toMatchObject({ status: 'failed', error: 'The run ended failed' });
  });

  it('leaves a job whose log entry was written to that entry', async () => {
    await enqueueRun(enqueueDeps(), aRequest());
    await startQueuedJob(startDeps(), 'task-1');
    await finalize({ success: true });
    await failUnsettledJob({ jobs, settledRunOf, slots, now }, 'task-1', 'The run ended failed');
    expect(jobs.jobs.get('task-1')?.status).toBe('processing');
  });
});

describe('jobStatusView', () => {
  const statusDeps = () => ({ jobs, now, settledRunOf });

  it('shows a processing job with its running duration and an estimate from recent runs', async () => {
    // Prepare
    await jobs.recordDuration('wf-1', 'earlier-task', 3000);
    await enqueueRun(enqueueDeps(), aRequest());
    await startQueuedJob(startDeps(), 'task-1');
    vi.advanceTimersByTime(1500);

    // Act
    const view = await jobStatusView(statusDeps(), (await jobs.getJob('task-1')) as Job);

    // Assess
    expect(view).toEqual({
      success: true,
      taskId: 'task-1',
      status: 'processing',
      metadata: { startedAt: '2026-03-01T12:00:00.000Z', duration: 1500 },
      estimatedDuration: 3000,
    });
  });

  it('shows a completed job with its output and no estimate', async () => {
    await enqueueRun(enqueueDeps(), aRequest());
    await startQueuedJob(startDeps(), 'task-1');
    vi.advanceTimersByTime(40);
    await finalize({ success: true, output: { shouted: 'ADA' } });
    const view = await jobStatusView(statusDeps(), (await jobs.getJob('task-1')) as Job);
    expect(view).toMatchObject({ success: true, status: 'completed', output: { shouted: 'ADA' } });
    expect(view.metadata).toEqual({
      startedAt: '2026-03-01T12:00:00.000Z',
      completedAt: '2026-03-01T12:00:00.040Z',
      duration: 40,
    });
    expect(view.estimatedDuration).toBeUndefined();
  });

  it('shows a failed run with its error and no output', async () => {
    await enqueueRun(enqueueDeps(), aRequest());
    await startQueuedJob(startDeps(), 'task-1');
    await finalize({ success: false, error: 'The run failed: boom' });
    const view = await jobStatusView(statusDeps(), (await jobs.getJob('task-1')) as Job);
    expect(view).toMatchObject({ success: true, status: 'failed', error: 'The run failed: boom' });
    expect(view.output).toBeUndefined();
    expect(view.estimatedDuration).toBeUndefined();
  });
});

describe('settledRunFrom', () => {
  const entry = (overrides: Partial<ExecutionLogEntry>): ExecutionLogEntry =>
    ({
      level: 'info',
      startedAt: '2026-01-01T00:00:00.000Z',
      endedAt: '2026-01-01T00:00:01.000Z',
      executionData: { traceSpans: [], finalOutput: { greeting: 'hi' } },
      ...overrides,
    }) as ExecutionLogEntry;

  it('reads an info entry as a run that succeeded, with its output and times', () => {
    // Act
    const run = settledRunFrom(entry({}));

    // Assess
    expect(run).toEqual({
      success: true,
      startedAt: '2026-01-01T00:00:00.000Z',
      endedAt: '2026-01-01T00:00:01.000Z',
      output: { greeting: 'hi' },
    });
  });

  it('reads an error entry as a failed run, with its error', () => {
    // Act
    const run = settledRunFrom(
      entry({ level: 'error', executionData: { traceSpans: [], finalOutput: null, error: 'boom' } }),
    );

    // Assess
    expect(run).toMatchObject({ success: false, error: 'boom' });
  });
});
