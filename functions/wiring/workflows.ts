import { dynamoDocumentClient } from '../../adapters/aws/clients';
import { DynamoWorkflowStore } from '../../adapters/dynamodb/workflow-store';
import {
  cachedWorkflowRecords,
  forgettingWrites,
  type WorkflowRecordCache,
} from '../../core/workflows/record-cache';
import type { WorkflowDeps } from '../../core/workflows/service';
import { identityDeps, lookupCacheTtlInMs } from './identity';
import { blobStore } from './storage';

let records: { client: unknown; cache: WorkflowRecordCache } | undefined;

/**
 * The workflow records runs read, one cache per process (made again when the local stack moves),
 * kept for `LOOKUP_CACHE_TTL_MS` like the caller's key and membership (./identity.ts).
 */
export function workflowRecords(): WorkflowRecordCache {
  const client = dynamoDocumentClient();
  if (records?.client !== client) {
    const store = DynamoWorkflowStore.fromEnv({ blobStore: blobStore() });
    records = {
      client,
      cache: cachedWorkflowRecords(store, { ttlInMs: lookupCacheTtlInMs(), nowInMs: Date.now }),
    };
  }
  return records.cache;
}

export function workflowDeps(): WorkflowDeps {
  return {
    identity: identityDeps().store,
    // Writes through here drop the run path's copy of the record at once.
    workflows: forgettingWrites(DynamoWorkflowStore.fromEnv({ blobStore: blobStore() }), workflowRecords()),
    now: () => new Date(),
  };
}
