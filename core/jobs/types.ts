/**
 * Jobs: asynchronous runs as the caller sees them. A job is created `queued` when a run is accepted
 * (async execute, webhook trigger, schedule fire), moves to `processing` when its run starts on the
 * Standard state machine, and ends `completed`, `failed` or `cancelled`. The task id is the run's
 * execution id, and so also the state machine execution's name.
 */
import type { ExecutionRequest } from '../runs/types';

export const jobStatuses = ['queued', 'processing', 'completed', 'failed', 'cancelled'] as const;
export type JobStatus = (typeof jobStatuses)[number];

/** The states a job never leaves. */
export const finishedJobStatuses: readonly JobStatus[] = ['completed', 'failed', 'cancelled'];

export interface Job {
  taskId: string;
  workspaceId: string;
  workflowId: string;
  userId: string;
  status: JobStatus;
  createdAt: string;
  /** When its run started on the state machine. */
  startedAt?: string;
  /** When it reached a finished status. */
  completedAt?: string;
  /** Why it failed or was cancelled. */
  error?: string;
  /** Unix seconds after which the job is gone (a TTL in AWS; filtered on read locally). */
  expiresAt: number;
}

/** What travels on the jobs queue. */
export type JobMessage =
  | { kind: 'job'; taskId: string }
  /** Sent by the workflow's schedule; `scheduledTime` is the fire's nominal time (ISO). */
  | { kind: 'schedule'; workflowId: string; scheduledTime: string };

export interface JobUpdate {
  status: JobStatus;
  startedAt?: string;
  completedAt?: string;
  error?: string;
}

export interface JobWithRequest {
  job: Job;
  request: ExecutionRequest;
}

/** Port: jobs and the run request each one starts. */
export interface JobStore {
  /** Stores a new job with its request; false (and nothing written) when the task id exists already. */
  createJob(job: Job, request: ExecutionRequest): Promise<boolean>;
  /** Undefined when there is no such job or it has expired. */
  getJob(taskId: string): Promise<Job | undefined>;
  /** The job with the run request it starts, in one read. */
  getJobWithRequest(taskId: string): Promise<JobWithRequest | undefined>;
  /** Several jobs with their requests, by task id, in as few reads as the store allows; missing and expired ones are left out. */
  getJobsWithRequests(taskIds: readonly string[]): Promise<Map<string, JobWithRequest>>;
  /**
   * Moves a job to `update.status` only if its status is one of `from`: the job after the change,
   * or undefined when the job is missing or in another status (nothing written).
   */
  updateJob(taskId: string, from: readonly JobStatus[], update: JobUpdate): Promise<Job | undefined>;
  /** updateJob without reading the job back: whether it moved. */
  moveJob(taskId: string, from: readonly JobStatus[], update: JobUpdate): Promise<boolean>;
  /** Adds a finished run's duration to the workflow's recent durations. */
  recordDuration(workflowId: string, taskId: string, durationInMs: number): Promise<void>;
  /** The mean of the workflow's recent run durations, if any have been recorded. */
  recentDurationInMs(workflowId: string): Promise<number | undefined>;
}

/**
 * An async run as its log entry tells it once it has ended. Finalize writes that entry once (a
 * repeated Finalize keeps the first), and the entry is what settles the run's job: the job item is
 * not written again, and its status is read as `completed` or `failed` from the entry.
 */
export interface SettledRun {
  success: boolean;
  startedAt: string;
  endedAt: string;
  error?: string;
  output?: unknown;
}

/** Port: the settled run of a task id (its log entry), if it has ended. */
export type SettledRunReader = (taskId: string) => Promise<SettledRun | undefined>;

/** Port: the jobs queue (SQS). */
export interface JobQueue {
  send(message: JobMessage): Promise<void>;
}

/** The interface's asynchronous execution result. */
export interface AsyncExecutionResult {
  success: true;
  taskId: string;
  status: 'queued';
  createdAt: string;
  links: { status: string };
}

/** The interface's job status. */
export interface JobStatusView {
  /** Whether the status request succeeded: always true for a found job, whatever its outcome. */
  success: true;
  taskId: string;
  status: JobStatus;
  metadata: { startedAt?: string; completedAt?: string; duration?: number };
  output?: unknown;
  error?: unknown;
  estimatedDuration?: number;
}
