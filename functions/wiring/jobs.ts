/**
 * Wiring of jobs: the store, the queue, and the deps of each job use case. The start worker's, which
 * turns schedule fires into runs (and so loads the cron evaluator), is in ./job-worker.ts.
 */
import { filePresigner } from './file-urls';
import { DynamoJobStore } from '../../adapters/dynamodb/job-store';
import { DynamoJobWriter } from '../../adapters/dynamodb/job-writer';
import { SqsJobQueue } from '../../adapters/sqs/job-queue';
import {
  type CancelDeps,
  type EnqueueDeps,
  type FailDeps,
  jobRetentionInSecondsOf,
  settledRunFrom,
  type StartDeps,
  type StatusDeps,
} from '../../core/jobs/service';
import type { SettledRunReader } from '../../core/jobs/types';
import { executionStarter } from './execution';
import { identityDeps } from './identity';
import { runSlotStore } from './limits';
import { blobStore } from './storage';
import { setting } from '../settings';
import { executionLogStore } from './execution-log';

const now = () => new Date();

export function jobStore(): DynamoJobStore {
  return DynamoJobStore.fromEnv({ blobStore: blobStore() });
}

/** `JOB_RETENTION_DAYS` (default 7), within `LOG_RETENTION_DAYS` (core/jobs/service.ts). */
export function jobRetentionInSeconds(): number {
  return jobRetentionInSecondsOf(setting('JOB_RETENTION_DAYS'), setting('LOG_RETENTION_DAYS'));
}

/** The ended run of a task id, from its log entry (one strongly consistent read). */
export function settledRunReader(): SettledRunReader {
  const logs = executionLogStore();
  return async (taskId) => {
    const entry = await logs.getLogEntryByExecutionId(taskId);
    return entry && settledRunFrom(entry);
  };
}

export function enqueueDeps(): EnqueueDeps {
  return {
    jobs: DynamoJobWriter.fromEnv({ blobStore: blobStore() }),
    queue: SqsJobQueue.fromEnv(),
    now,
    retentionInSeconds: jobRetentionInSeconds(),
  };
}

export function startDeps(): StartDeps {
  return { jobs: jobStore(), runs: executionStarter(), now };
}

/** For failing the jobs whose runs never started or broke outside Finalize. */
export function failDeps(): FailDeps {
  return { jobs: jobStore(), settledRunOf: settledRunReader(), slots: runSlotStore(), now };
}

export function cancelDeps(): CancelDeps {
  return {
    identity: identityDeps().store,
    jobs: jobStore(),
    runs: executionStarter(),
    settledRunOf: settledRunReader(),
    slots: runSlotStore(),
    now,
  };
}

export function statusDeps(): StatusDeps & { identity: CancelDeps['identity']; jobs: DynamoJobStore } {
  return {
    identity: identityDeps().store,
    jobs: jobStore(),
    now,
    settledRunOf: settledRunReader(),
    presignFile: filePresigner(),
  };
}
