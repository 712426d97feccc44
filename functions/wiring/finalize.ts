/** Wiring of Finalize: the Finalize task, and the streamed runs that finalize in the execute route. */
import { DynamoCheckpointStore } from '../../adapters/dynamodb/checkpoint-store';
import { DynamoJobStore } from '../../adapters/dynamodb/job-store';
import { DynamoLimitsStore } from '../../adapters/dynamodb/limits-store';
import { DynamoRunSlotStore } from '../../adapters/dynamodb/run-slot-store';
import { DynamoMetricsStore } from '../../adapters/dynamodb/metrics-store';
import { DynamoWorkflowStore } from '../../adapters/dynamodb/workflow-store';
import { SqsNotificationQueue } from '../../adapters/sqs/notification-queue';
import { durationSampler } from '../../core/jobs/service';
import { publishingWhenMatched } from '../../core/notifications/publishing';
import type { FinalizeDeps } from '../../core/runs/service';
import { baseChargePerRunInUsd } from './limits';
import { blobStore } from './storage';
import { subscriptionCache } from './subscriptions';
import { executionLogStore } from './execution-log';

/** Kept by the process: its Finalize records at most one run duration per workflow a second. */
const recordsDurationOf = durationSampler(1000);

export function finalizeDeps(): FinalizeDeps {
  return {
    recordsDurationOf,
    logs: executionLogStore(),
    usage: DynamoLimitsStore.fromEnv(),
    metrics: DynamoMetricsStore.fromEnv(),
    checkpoints: DynamoCheckpointStore.fromEnv({ blobStore: blobStore() }),
    jobs: DynamoJobStore.fromEnv({ blobStore: blobStore() }),
    now: () => new Date(),
    baseChargePerRunInUsd: baseChargePerRunInUsd(),
    // The workflow store alone: Finalize needs no identity reads.
    drafts: DynamoWorkflowStore.fromEnv({ blobStore: blobStore() }),
    // Only the events a subscription matches (core/notifications/publishing.ts).
    notifications: publishingWhenMatched(SqsNotificationQueue.fromEnv(), subscriptionCache()),
    slots: DynamoRunSlotStore.fromEnv(),
  };
}
