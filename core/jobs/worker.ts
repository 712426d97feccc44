/**
 * What the jobs queue's consumer does with one message: start a queued job, or turn a schedule
 * fire into a job and start it. Schedule fires carry a task id that follows from the schedule and
 * the fire time, so a fire delivered twice becomes one job and one run.
 */
import { ValidationError } from '../errors';
import type { ExecutionRequest } from '../runs/types';
import { queuedJob, type StartDeps, type StartOutcome, startJobAsRead, startQueuedJob } from './service';
import type { JobMessage, JobStore } from './types';

export interface JobWorkerDeps extends StartDeps {
  jobs: StartDeps['jobs'] & Pick<JobStore, 'createJob' | 'getJobsWithRequests'>;
  retentionInSeconds: number;
  /** The run a schedule fire starts, or undefined when the schedule no longer applies. */
  fireRequest(message: Extract<JobMessage, { kind: 'schedule' }>): Promise<ExecutionRequest | undefined>;
}

/**
 * One queue batch: the jobs its messages name are read in one call, then each message is handled
 * on its own. Answers, for each body in order, its outcome or the error that failed it (a failed
 * message is delivered again; a batch whose read failed fails all its job messages).
 */
export async function handleJobMessages(
  deps: JobWorkerDeps,
  bodies: readonly string[],
): Promise<PromiseSettledResult<StartOutcome>[]> {
  const messages = bodies.map((body) => {
    try {
      return parseJobMessage(body);
    } catch (error) {
      return error as Error;
    }
  });
  const taskIds = messages.flatMap((message) =>
    !(message instanceof Error) && message.kind === 'job' ? [message.taskId] : [],
  );
  const read = taskIds.length > 0 ? deps.jobs.getJobsWithRequests(taskIds) : Promise.resolve(new Map());
  // Handled per message below, so an unread batch fails its job messages and no other.
  read.catch(() => undefined);
  return Promise.allSettled(
    messages.map(async (message) => {
      if (message instanceof Error) throw message;
      if (message.kind === 'job')
        return startJobAsRead(deps, message.taskId, (await read).get(message.taskId));
      return handleJobMessage(deps, message);
    }),
  );
}

export async function handleJobMessage(deps: JobWorkerDeps, message: JobMessage): Promise<StartOutcome> {
  if (message.kind === 'job') return startQueuedJob(deps, message.taskId);
  const request = await deps.fireRequest(message);
  if (!request) return 'skipped';
  await deps.jobs.createJob(queuedJob(request, deps.now(), deps.retentionInSeconds), {
    ...request,
    mode: 'async',
  });
  return startQueuedJob(deps, request.executionId);
}

/** The message in a queue body; anything else is a ValidationError (it can never be handled). */
export function parseJobMessage(body: string): JobMessage {
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    throw new ValidationError('Job message is not JSON');
  }
  const value = (message ?? {}) as Record<string, unknown>;
  if (value.kind === 'job' && typeof value.taskId === 'string' && value.taskId !== '') {
    return { kind: 'job', taskId: value.taskId };
  }
  if (
    value.kind === 'schedule' &&
    typeof value.workflowId === 'string' &&
    typeof value.scheduledTime === 'string' &&
    Number.isFinite(Date.parse(value.scheduledTime))
  ) {
    return { kind: 'schedule', workflowId: value.workflowId, scheduledTime: value.scheduledTime };
  }
  throw new ValidationError('Job message is neither a job nor a schedule fire');
}
