import { workflowRoutes } from '../../catalog/workflow-routes';
import type { WorkflowGraph } from '../../core/engine/types';
import { createWorkflow } from '../../core/workflows/service';
import { created } from '../http/responses';
import { httpRoute } from '../http/route';
import { workflowDeps } from '../wiring/workflows';
import { saveWarnings } from './save-warnings';

export const handler = httpRoute(workflowRoutes, 'createWorkflow', async ({ principal, body }) => {
  const workflow = await createWorkflow(workflowDeps(), principal, {
    ...body,
    state: body.state as WorkflowGraph,
  });
  return created({
    data: workflow,
    ...(await saveWarnings(principal.user, body.state as WorkflowGraph | undefined, () => workflow.state)),
  });
});
