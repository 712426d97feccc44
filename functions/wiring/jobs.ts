/**
 * Wiring of jobs: the store, the queue, and the deps of each job use case. The start worker's, which
 * turns schedule fires into runs (and so loads the cron evaluator), is in ./job-worker.ts.
 */
import { filePresigner } from './file-urls';
import { DynamoExecutionLogStore } from '../../adapters/dynamodb/execution-log-store';
import { DynamoJobStore } from '../../adapters/dynamodb/job-store';
import { DynamoJobWriter } from '../../adapters/dynamodb/job-writer';
import { SqsJobQueue } from '../../adapters/sqs/job-queue';
import {
  type CancelDeps,
  defaultJobRetentionInSeconds,
  type EnqueueDeps,
  type SettleDeps,
  type StartDeps,
  type StatusDeps,
} from '../../core/jobs/service';
import { executionStarter } from './execution';
import { identityDeps } from './identity';
import { blobStore } from './storage';

const now = () => new Date();

export function jobStore(): DynamoJobStore {
  return DynamoJobStore.fromEnv({ blobStore: blobStore() });
}

/** `JOB_RETENTION_DAYS` (default 7): how long a job stays readable after it was accepted. */
export function jobRetentionInSeconds(): number {
  const days = process.env.JOB_RETENTION_DAYS;
  if (days === undefined || days === '') return defaultJobRetentionInSeconds;
  const value = Number(days);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error('JOB_RETENTION_DAYS must be a positive number of days');
  return Math.round(value * 24 * 3600);
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

export function settleDeps(): SettleDeps {
  return { jobs: jobStore(), now };
}

export function cancelDeps(): CancelDeps {
  return { identity: identityDeps().store, jobs: jobStore(), runs: executionStarter(), now };
}

export function statusDeps(): StatusDeps & { identity: CancelDeps['identity']; jobs: DynamoJobStore } {
  const logs = DynamoExecutionLogStore.fromEnv({ blobStore: blobStore() });
  return {
    identity: identityDeps().store,
    jobs: jobStore(),
    now,
    outputOf: async (taskId) => (await logs.getLogEntryByExecutionId(taskId))?.executionData.finalOutput,
    presignFile: filePresigner(),
  };
}
