import { workflowRoutes } from '../../catalog/workflow-routes';
import { applyWorkflowSchedule } from '../../core/schedules/service';
import { deployWorkflow, getWorkflow } from '../../core/workflows/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { permissionWarnings } from '../wiring/permissions';
import { workflowScheduleDeps } from '../wiring/schedules';
import { workflowDeps } from '../wiring/workflows';

export const handler = httpRoute(workflowRoutes, 'deployWorkflow', async ({ principal, params }) => {
  const status = await deployWorkflow(workflowDeps(), principal, params.workflowId);
  // A schedule fires only while its workflow is deployed.
  await applyWorkflowSchedule(workflowScheduleDeps(), params.workflowId);
  const warnings = await permissionWarnings(
    principal.user,
    async () => (await getWorkflow(workflowDeps(), principal, params.workflowId)).state,
  );
  return ok({ data: status, ...warnings });
});
