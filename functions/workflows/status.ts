import { workflowRoutes } from '../../catalog/workflow-routes';
import { getWorkflowStatus } from '../../core/workflows/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { workflowDeps } from '../wiring/workflows';

export const handler = httpRoute(workflowRoutes, 'getWorkflowStatus', async ({ principal, params }) =>
  ok(await getWorkflowStatus(workflowDeps(), principal, params.workflowId)),
);
