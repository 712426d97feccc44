import type { WorkflowLoader } from '../engine/types';
import type { WorkflowStore } from './types';

/**
 * Child workflows for the `workflow` block: only a deployed workflow of the same workspace, and
 * always its deployed snapshot, so a parent never runs somebody else's draft.
 */
export function deployedWorkflowLoader(
  workflows: Pick<WorkflowStore, 'getWorkflow' | 'getDeployment'>,
): WorkflowLoader {
  return {
    async loadDeployed(workspaceId, workflowId) {
      const workflow = await workflows.getWorkflow(workflowId);
      if (!workflow || workflow.workspaceId !== workspaceId) return undefined;
      if (!workflow.isDeployed || workflow.deployedVersion === undefined) return undefined;
      return (await workflows.getDeployment(workflowId, workflow.deployedVersion))?.state;
    },
  };
}
