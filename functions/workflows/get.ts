import { workflowRoutes } from '../../catalog/workflow-routes';
import { getWorkflow } from '../../core/workflows/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { workflowDeps } from '../wiring/workflows';

export const handler = httpRoute(workflowRoutes, 'getWorkflow', async ({ principal, params }) =>
  ok({ data: await getWorkflow(workflowDeps(), principal, params.workflowId) }),
);
