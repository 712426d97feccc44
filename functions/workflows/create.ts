import { workflowRoutes } from '../../catalog/workflow-routes';
import type { WorkflowGraph } from '../../core/engine/types';
import { createWorkflow } from '../../core/workflows/service';
import { created } from '../http/responses';
import { httpRoute } from '../http/route';
import { permissionWarnings } from '../wiring/permissions';
import { workflowDeps } from '../wiring/workflows';

export const handler = httpRoute(workflowRoutes, 'createWorkflow', async ({ principal, body }) => {
  const workflow = await createWorkflow(workflowDeps(), principal, {
    ...body,
    state: body.state as WorkflowGraph,
  });
  return created({ data: workflow, ...(await permissionWarnings(principal.user, () => workflow.state)) });
});
