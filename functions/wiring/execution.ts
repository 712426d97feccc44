/** Wiring of the run path: the execution starter for the execute route, and Step/Finalize deps (a run's preparation: ./prepare.ts). */
import { SfnExecutionStarter } from '../../adapters/aws/sfn-execution-starter';
import { SqsNotificationQueue } from '../../adapters/sqs/notification-queue';
import { DynamoCheckpointStore } from '../../adapters/dynamodb/checkpoint-store';
import { DynamoExecutionLogStore } from '../../adapters/dynamodb/execution-log-store';
import { DynamoJobStore } from '../../adapters/dynamodb/job-store';
import { DynamoLimitsStore } from '../../adapters/dynamodb/limits-store';
import { DynamoWorkflowStore } from '../../adapters/dynamodb/workflow-store';
import type { ExecutionStarter } from '../../core/runs/types';
import { durationSampler } from '../../core/jobs/service';
import type { FinalizeDeps } from '../../core/runs/service';
import { deploymentReader } from './deployments';
import { baseChargePerRunInUsd } from './limits';
import { overrides } from './overrides';
import { blobStore } from './storage';

export { deploymentReader };

/**
 * How long a sync run may take in all (`SYNC_BUDGET_MS`, default 27 s): API Gateway gives up on a
 * REST integration at 29 s, and Finalize and the answer need the rest.
 */
export function syncBudgetInMs(): number {
  return positiveNumberFromEnv('SYNC_BUDGET_MS') ?? 27_000;
}

function positiveNumberFromEnv(name: string): number | undefined {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : undefined;
}

export function executionStarter(): ExecutionStarter {
  return overrides.executionStarter ?? SfnExecutionStarter.fromEnv();
}

/** Kept by the process: its Finalize records at most one run duration per workflow a second. */
const recordsDurationOf = durationSampler(1000);

export function finalizeDeps(): FinalizeDeps {
  return {
    recordsDurationOf,
    logs: DynamoExecutionLogStore.fromEnv({ blobStore: blobStore() }),
    usage: DynamoLimitsStore.fromEnv(),
    checkpoints: DynamoCheckpointStore.fromEnv({ blobStore: blobStore() }),
    jobs: DynamoJobStore.fromEnv({ blobStore: blobStore() }),
    now: () => new Date(),
    baseChargePerRunInUsd: baseChargePerRunInUsd(),
    // The workflow store alone: Finalize needs no identity reads.
    drafts: DynamoWorkflowStore.fromEnv({ blobStore: blobStore() }),
    notifications: SqsNotificationQueue.fromEnv(),
  };
}
