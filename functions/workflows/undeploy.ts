import { workflowRoutes } from '../../catalog/workflow-routes';
import { withdrawWorkflowSchedule } from '../../core/schedules/service';
import { undeployWorkflow } from '../../core/workflows/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { workflowScheduleDeps } from '../wiring/schedules';
import { workflowDeps } from '../wiring/workflows';

export const handler = httpRoute(workflowRoutes, 'undeployWorkflow', async ({ principal, params }) => {
  const status = await undeployWorkflow(workflowDeps(), principal, params.workflowId);
  // A schedule fires only while its workflow is deployed; it stays stored for the next deploy.
  await withdrawWorkflowSchedule(workflowScheduleDeps(), params.workflowId);
  return ok({ data: status });
});
