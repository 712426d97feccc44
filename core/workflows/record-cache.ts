/**
 * The workflow records the run path reads (which deployment is live, which workspace it is in),
 * kept in the process for a bounded time. A change made through this process (an update, a
 * deploy, an undeploy, a delete) drops the record at once; one made through another process
 * (another Lambda instance) is used by runs within `ttlInMs`, as is the deployment a run starts.
 */
import { ExpiringMap, type ExpiryOptions, forgettingAround } from '../expiring-map';
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
  const forget = (workflowId: string) => cache.forget(workflowId);
  const overrides: Partial<WorkflowStore> = {
    putWorkflow: (workflow, expectedRevision) =>
      forgettingAround(forget, workflow.id, () => store.putWorkflow(workflow, expectedRevision)),
    deleteWorkflow: (workflowId) =>
      forgettingAround(forget, workflowId, () => store.deleteWorkflow(workflowId)),
  };
  return overridden(store, overrides);
}
