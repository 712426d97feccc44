import { DynamoWorkflowStore } from '../../adapters/dynamodb/workflow-store';
import {
  cachedWorkflowRecords,
  forgettingWrites,
  type WorkflowRecordCache,
} from '../../core/workflows/record-cache';
import type { WorkflowDeps } from '../../core/workflows/service';
import { identityDeps, lookupCacheTtlInMs } from './identity';
import { keptPerClient } from './per-client';
import { blobStore } from './storage';

/**
 * The workflow records runs read, one cache per process, kept for `LOOKUP_CACHE_TTL_MS` like the
 * caller's key and membership (./identity.ts).
 */
export const workflowRecords = keptPerClient(
  (): WorkflowRecordCache =>
    cachedWorkflowRecords(DynamoWorkflowStore.fromEnv({ blobStore: blobStore() }), {
      ttlInMs: lookupCacheTtlInMs(),
      nowInMs: Date.now,
    }),
);

export function workflowDeps(): WorkflowDeps {
  return {
    identity: identityDeps().store,
    // Writes through here drop the run path's copy of the record at once.
    workflows: forgettingWrites(DynamoWorkflowStore.fromEnv({ blobStore: blobStore() }), workflowRecords()),
    now: () => new Date(),
  };
}
