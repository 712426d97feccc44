import type { Deployment, WorkflowStore } from './types';

/**
 * Deployments never change once written, so a warm Lambda (or the local server) can keep them:
 * a run then costs no snapshot read at all.
 */
export function cachedDeployments(
  store: Pick<WorkflowStore, 'getDeployment'>,
  maxEntries = 200,
): Pick<WorkflowStore, 'getDeployment'> {
  const cache = new Map<string, Deployment>();
  return {
    async getDeployment(workflowId, version) {
      const key = `${workflowId}#${version}`;
      const hit = cache.get(key);
      if (hit) return hit;
      const deployment = await store.getDeployment(workflowId, version);
      if (deployment) {
        if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
        cache.set(key, deployment);
      }
      return deployment;
    },
  };
}
