import { cachedDeployments } from '../../core/workflows/deployment-cache';
import { workflowDeps } from './workflows';

let deployments: ReturnType<typeof cachedDeployments> | undefined;

/** Deployments are immutable, so one cache serves the whole process. */
export function deploymentReader(): ReturnType<typeof cachedDeployments> {
  deployments ??= cachedDeployments({
    getDeployment: (workflowId, version) => workflowDeps().workflows.getDeployment(workflowId, version),
  });
  return deployments;
}
