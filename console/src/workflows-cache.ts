/** The workspace's workflows, read once per workspace and shared by the pages that name them. */
import { getData } from './api';
import type { Workflow } from './types';
import { type Async, useAsync } from './ui';

const cache = new Map<string, Promise<Workflow[]>>();

export function workflowsOf(workspaceId: string, fresh = false): Promise<Workflow[]> {
  let pending = cache.get(workspaceId);
  if (!pending || fresh) {
    pending = getData<Workflow[]>('/api/workflows', { workspaceId });
    cache.set(workspaceId, pending);
    pending.catch(() => cache.delete(workspaceId));
  }
  return pending;
}

export function forgetWorkflows(): void {
  cache.clear();
}

export function useWorkflows(workspaceId: string): Async<Workflow[]> {
  return useAsync(() => workflowsOf(workspaceId), [workspaceId]);
}

export function nameOf(workflows: Workflow[] | undefined, workflowId: string): string {
  return workflows?.find((workflow) => workflow.id === workflowId)?.name ?? workflowId;
}
