/**
 * The job use cases: accept a run as a queued job, start it from the queue, settle it when its run
 * ends, cancel it, fail it when its message is dead-lettered, and show its status.
 *
 * Every move is a conditional update from the statuses it may leave, so a redelivered message or a
 * cancel racing the run's end each change the job at most once, and a finished job never changes
 * again. A run's end is not a move of the job item: the run's log entry, written once by Finalize,
 * settles its job (`SettledRun`), and a job stored `queued` or `processing` whose run has a log entry
 * reads as `completed` or `failed`. A status the job item holds as finished (cancelled, or failed
 * because its run never started or broke outside Finalize) comes first.
 */
import { BoundedMap } from '../bounded-map';
import { type FilePresigner, withFreshFileUrls } from '../files/collect';
import { ConflictError, NotFoundError } from '../errors';
import type { Principal } from '../identity/service';
import type { IdentityStore } from '../identity/types';
import { requireWorkspaceAccess } from '../identity/access';
import type { ExecutionLogEntry } from '../runs/log';
import { releaseRunSlot, type RunSlotStore } from '../limits/run-slots';
import type { ExecutionRequest, ExecutionStarter } from '../runs/types';
import {
  type AsyncExecutionResult,
  finishedJobStatuses,
  type Job,
  type JobQueue,
  type JobStatusView,
  type JobStore,
  type JobWithRequest,
  type SettledRun,
  type SettledRunReader,
} from './types';

/** How long a job stays readable after it was accepted: `JOB_RETENTION_DAYS`, default 7 days. */
export const defaultJobRetentionInSeconds = 7 * 24 * 3600;

/**
 * How long a job stays readable after it was accepted, from `JOB_RETENTION_DAYS` (a positive number of
 * days, checked where settings are read; unset: the default): never longer than the run's log entry is kept, as that entry tells that the job has
 * settled.
 */
export function jobRetentionInSecondsOf(
  retentionInDays: number | undefined,
  logRetentionInDays: number,
): number {
  const logRetentionInSeconds = logRetentionInDays * 24 * 3600;
  if (retentionInDays === undefined) return Math.min(defaultJobRetentionInSeconds, logRetentionInSeconds);
  return Math.min(Math.round(retentionInDays * 24 * 3600), logRetentionInSeconds);
}

export function jobStatusPath(taskId: string): string {
  return `/api/jobs/${encodeURIComponent(taskId)}`;
}

export interface EnqueueDeps {
  jobs: Pick<JobStore, 'createJob' | 'getJob' | 'moveJob'>;
  queue: JobQueue;
  now: () => Date;
  retentionInSeconds: number;
}

/**
 * Stores the run as a queued job, then queues it. The job is written first so that nothing the
 * caller was told is queued can be missing; a job whose message could not be sent is failed at once.
 * Accepting a task id that exists already (a schedule fire delivered twice) queues nothing new.
 */
export async function enqueueRun(
  deps: EnqueueDeps,
  request: ExecutionRequest,
): Promise<AsyncExecutionResult> {
  const job = queuedJob(request, deps.now(), deps.retentionInSeconds);
  const created = await deps.jobs.createJob(job, { ...request, mode: 'async' });
  if (!created) {
    const existing = await deps.jobs.getJob(job.taskId);
    return asyncResult(existing ?? job);
  }
  try {
    await deps.queue.send({ kind: 'job', taskId: job.taskId });
  } catch (error) {
    await deps.jobs.moveJob(job.taskId, ['queued'], {
      status: 'failed',
      completedAt: deps.now().toISOString(),
      error: 'The run could not be queued',
    });
    throw error;
  }
  return asyncResult(job);
}

export function queuedJob(request: ExecutionRequest, createdAt: Date, retentionInSeconds: number): Job {
  return {
    taskId: request.executionId,
    workspaceId: request.workspaceId,
    workflowId: request.workflowId,
    userId: request.userId,
    status: 'queued',
    createdAt: createdAt.toISOString(),
    expiresAt: Math.floor(createdAt.getTime() / 1000) + retentionInSeconds,
  };
}

function asyncResult(job: Pick<Job, 'taskId' | 'createdAt'>): AsyncExecutionResult {
  return {
    success: true,
    taskId: job.taskId,
    status: 'queued',
    createdAt: job.createdAt,
    links: { status: jobStatusPath(job.taskId) },
  };
}

export interface StartDeps {
  jobs: Pick<JobStore, 'getJob' | 'getJobWithRequest' | 'moveJob'>;
  runs: Pick<ExecutionStarter, 'startAsync' | 'stopAsync'>;
  now: () => Date;
}

export type StartOutcome = 'started' | 'skipped';

/**
 * Starts a queued job's run, named by its task id, so a redelivered message cannot start a second
 * one. A job that is gone, cancelled or finished is skipped. The job moves to `processing` after
 * the start, so a start that failed leaves it `queued` for the message's next delivery; a job
 * cancelled between the read and the start has its run stopped again at once.
 */
export async function startQueuedJob(deps: StartDeps, taskId: string): Promise<StartOutcome> {
  return startJobAsRead(deps, taskId, await deps.jobs.getJobWithRequest(taskId));
}

/** startQueuedJob, given the job as it was read (with the other jobs of its queue batch). */
export async function startJobAsRead(
  deps: StartDeps,
  taskId: string,
  found: JobWithRequest | undefined,
): Promise<StartOutcome> {
  if (found?.job.status !== 'queued') return 'skipped';
  const { request } = found;
  const startedAt = deps.now().toISOString();
  await deps.runs.startAsync({ ...request, startedAt });
  const processing = await deps.jobs.moveJob(taskId, ['queued'], { status: 'processing', startedAt });
  if (!processing) {
    const now = await deps.jobs.getJob(taskId);
    if (now?.status === 'cancelled') await deps.runs.stopAsync(taskId, 'Cancelled by the user');
  }
  return 'started';
}

export interface SettleDeps {
  jobs: Pick<JobStore, 'recordDuration'>;
  now: () => Date;
  /** Whether a settled run of this workflow has its duration recorded; without it, every one does. */
  recordsDurationOf?: (workflowId: string) => boolean;
}

/**
 * Picks the settled runs whose durations are recorded: at most one per workflow per `intervalInMs`
 * in each process, the others are left out. The estimate averages a sample of recent runs anyway,
 * so a workflow run now and then has every run recorded, and one run hundreds of times a second
 * costs a write a second instead of one per run. Remembers the `maxWorkflows` latest workflows.
 */
export function durationSampler(
  intervalInMs: number,
  nowInMs: () => number = Date.now,
  maxWorkflows = 1000,
): (workflowId: string) => boolean {
  const recordedAtInMs = new BoundedMap<string, number>(maxWorkflows);
  return (workflowId) => {
    const now = nowInMs();
    const last = recordedAtInMs.get(workflowId);
    if (last !== undefined && now - last < intervalInMs) return false;
    recordedAtInMs.set(workflowId, now);
    return true;
  };
}

/**
 * Called by Finalize for asynchronous runs, once the run's log entry is written: that entry settles
 * the job (the status is read from it), so the job item is not written again. What is left is the
 * run's duration, for the estimate shown on queued and processing jobs; a repeated Finalize records
 * the same duration in the same place.
 */
export async function settleJob(
  deps: SettleDeps,
  request: Pick<ExecutionRequest, 'executionId' | 'workflowId'>,
  result: { durationInMs: number },
): Promise<void> {
  if (deps.recordsDurationOf?.(request.workflowId) ?? true) {
    await deps.jobs.recordDuration(request.workflowId, request.executionId, result.durationInMs);
  }
}

/** An ended run as its log entry tells it: the entry's level is the run's outcome. */
export function settledRunFrom(entry: ExecutionLogEntry): SettledRun {
  return {
    success: entry.level === 'info',
    startedAt: entry.startedAt,
    endedAt: entry.endedAt,
    output: entry.executionData.finalOutput,
    ...(entry.executionData.error === undefined ? {} : { error: entry.executionData.error }),
  };
}

/** The job as its ended run settled it, unless the job item holds a finished status already. */
export function settledJob(job: Job, run: SettledRun | undefined): Job {
  if (!run || finishedJobStatuses.includes(job.status)) return job;
  const settled: Job = {
    ...job,
    status: run.success ? 'completed' : 'failed',
    startedAt: run.startedAt,
    completedAt: run.endedAt,
  };
  if (run.success) delete settled.error;
  else settled.error = run.error ?? 'The run failed';
  return settled;
}

export interface JobAccessDeps {
  identity: IdentityStore;
  jobs: Pick<JobStore, 'getJob'>;
}

/** The job, if the principal may see its workspace; another user's or workspace's job is a 404. */
export async function loadJob(deps: JobAccessDeps, principal: Principal, taskId: string): Promise<Job> {
  const notFound = `Job ${taskId} not found`;
  const job = await deps.jobs.getJob(taskId);
  if (!job) throw new NotFoundError(notFound);
  await requireWorkspaceAccess(deps.identity, principal.user.id, job.workspaceId, 'read', notFound);
  return job;
}

export interface CancelDeps extends JobAccessDeps {
  jobs: Pick<JobStore, 'getJob' | 'updateJob'>;
  runs: Pick<ExecutionStarter, 'stopAsync'>;
  settledRunOf: SettledRunReader;
  /** The workspaces' runs in progress: a cancelled run never reaches Finalize, so it gives its slot back here. */
  slots: Pick<RunSlotStore, 'remove'>;
  now: () => Date;
}

/**
 * Cancels a queued or processing job: the job is marked first (so a run ending meanwhile cannot
 * settle it), then its run is stopped (a run not started yet is stopped by its starter, which
 * finds the job cancelled). A finished job is a 409.
 */
export async function cancelJob(deps: CancelDeps, principal: Principal, taskId: string): Promise<Job> {
  const job = await loadJob(deps, principal, taskId);
  await requireWorkspaceAccess(
    deps.identity,
    principal.user.id,
    job.workspaceId,
    'write',
    `Job ${taskId} not found`,
  );
  const settled = finishedJobStatuses.includes(job.status)
    ? job
    : settledJob(job, await deps.settledRunOf(taskId));
  if (finishedJobStatuses.includes(settled.status)) {
    throw new ConflictError(`Job ${taskId} is ${settled.status} and cannot be cancelled`);
  }
  // A run that ends from here on finds its job cancelled: the cancelled status comes first.
  const cancelled = await deps.jobs.updateJob(taskId, ['queued', 'processing'], {
    status: 'cancelled',
    completedAt: deps.now().toISOString(),
    error: 'Cancelled',
  });
  if (!cancelled) {
    const now = await deps.jobs.getJob(taskId);
    throw new ConflictError(`Job ${taskId} is ${now?.status ?? job.status} and cannot be cancelled`);
  }
  // Also for a queued job: its run may have started a moment ago, before it was marked processing.
  await deps.runs.stopAsync(taskId, 'Cancelled by the user');
  await releaseRunSlot(deps, { workspaceId: job.workspaceId, executionId: taskId });
  return cancelled;
}

export interface FailDeps {
  jobs: Pick<JobStore, 'moveJob' | 'getJob'>;
  settledRunOf: SettledRunReader;
  /** The workspaces' runs in progress: a run that never reached Finalize gives its slot back here. */
  slots: Pick<RunSlotStore, 'remove'>;
  now: () => Date;
}

/** Gives back the slot of a job's run that will never reach Finalize (it never started, or broke). */
async function releaseSlotOfJob(deps: FailDeps, taskId: string): Promise<void> {
  const job = await deps.jobs.getJob(taskId);
  if (job) await releaseRunSlot(deps, { workspaceId: job.workspaceId, executionId: taskId });
}

/**
 * A job whose message went to the dead-letter queue never started: it fails, saying why. One whose
 * run has ended after all (its log entry settles it) is left as it is.
 */
export async function failDeadLetteredJob(
  deps: FailDeps,
  taskId: string,
  receiveCount: number,
): Promise<void> {
  if (await deps.settledRunOf(taskId)) return;
  await deps.jobs.moveJob(taskId, ['queued'], {
    status: 'failed',
    completedAt: deps.now().toISOString(),
    error: `The run could not be started after ${receiveCount} attempts`,
  });
  await releaseSlotOfJob(deps, taskId);
}

/**
 * A run that broke outside the state machine's Catch (its Finalize failed for good) may never have
 * written the log entry that settles its job; this fails the job then, so no job is left
 * `processing` forever. A run whose entry was written is settled by it.
 */
export async function failUnsettledJob(deps: FailDeps, taskId: string, reason: string): Promise<void> {
  if (await deps.settledRunOf(taskId)) return;
  await deps.jobs.moveJob(taskId, ['queued', 'processing'], {
    status: 'failed',
    completedAt: deps.now().toISOString(),
    error: reason,
  });
  await releaseSlotOfJob(deps, taskId);
}

export interface StatusDeps {
  jobs: Pick<JobStore, 'recentDurationInMs'>;
  /** The run's log entry, read for a job that is not finished as stored, and for its output. */
  settledRunOf: SettledRunReader;
  now: () => Date;
  /** Presigns the URLs of files in the output anew, so they work whenever the job is read. */
  presignFile?: FilePresigner;
}

/** The interface's job status object, of the job as stored and settled by its run's log entry. */
export async function jobStatusView(deps: StatusDeps, stored: Job): Promise<JobStatusView> {
  // A job failed or cancelled as stored shows no output; any other may have a settled run.
  const run =
    stored.status === 'failed' || stored.status === 'cancelled'
      ? undefined
      : await deps.settledRunOf(stored.taskId);
  const job = settledJob(stored, run);
  const finished = finishedJobStatuses.includes(job.status);
  const metadata: JobStatusView['metadata'] = {
    ...(job.startedAt ? { startedAt: job.startedAt } : {}),
    ...(job.completedAt ? { completedAt: job.completedAt } : {}),
  };
  if (job.startedAt) {
    const end = job.completedAt ? Date.parse(job.completedAt) : deps.now().getTime();
    metadata.duration = Math.max(0, end - Date.parse(job.startedAt));
  }
  const view: JobStatusView = {
    // The interface's `success` is the status request's own: the job was found and read. How the
    // run went is `status` (and `error`), so a failed or cancelled job still answers true.
    success: true,
    taskId: job.taskId,
    status: job.status,
    metadata,
  };
  if (job.status === 'completed')
    view.output = await withFreshFileUrls(run?.output, deps.presignFile, job.workspaceId);
  if (job.error !== undefined && job.status !== 'completed') view.error = job.error;
  if (!finished) {
    const estimate = await deps.jobs.recentDurationInMs(job.workflowId);
    if (estimate !== undefined) view.estimatedDuration = Math.round(estimate);
  }
  return view;
}
