/**
 * The workflow records the run path reads (which deployment is live, which workspace it is in),
 * kept in the process for a bounded time. A change made through this process (an update, a
 * deploy, an undeploy, a delete) drops the record at once; one made through another process
 * (another Lambda instance) is used by runs within `ttlInMs`, as is the deployment a run starts.
 */
import { ExpiringMap, type ExpiryOptions } from '../expiring-map';
import { overridden } from '../overridden';
import type { WorkflowRecord, WorkflowStore } from './types';

export interface WorkflowRecordCache {
  getWorkflow(workflowId: string): Promise<WorkflowRecord | undefined>;
  forget(workflowId: string): void;
}

export function cachedWorkflowRecords(
  store: Pick<WorkflowStore, 'getWorkflow'>,
  options: ExpiryOptions,
): WorkflowRecordCache {
  const records = new ExpiringMap<WorkflowRecord>(options);
  return {
    getWorkflow: (workflowId) => records.get(workflowId, () => store.getWorkflow(workflowId)),
    forget: (workflowId) => records.delete(workflowId),
  };
}

/** `store`, telling `cache` of every workflow it writes or deletes. */
export function forgettingWrites(
  store: WorkflowStore,
  cache: Pick<WorkflowRecordCache, 'forget'>,
): WorkflowStore {
  const overrides: Partial<WorkflowStore> = {
    async putWorkflow(workflow, expectedRevision) {
      cache.forget(workflow.id);
      await store.putWorkflow(workflow, expectedRevision);
      cache.forget(workflow.id);
    },
    async deleteWorkflow(workflowId) {
      cache.forget(workflowId);
      await store.deleteWorkflow(workflowId);
      cache.forget(workflowId);
    },
  };
  return overridden(store, overrides);
}
