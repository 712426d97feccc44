import { workflowRoutes } from '../../catalog/workflow-routes';
import type { WorkflowGraph } from '../../core/engine/types';
import { updateWorkflow } from '../../core/workflows/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { workflowDeps } from '../wiring/workflows';
import { saveWarnings } from './save-warnings';

export const handler = httpRoute(workflowRoutes, 'updateWorkflow', async ({ principal, params, body }) => {
  const workflow = await updateWorkflow(workflowDeps(), principal, params.workflowId, {
    ...body,
    state: body.state as WorkflowGraph | undefined,
  });
  return ok({
    data: workflow,
    ...(await saveWarnings(principal.user, body.state as WorkflowGraph | undefined, () => workflow.state)),
  });
});
