import { workflowRoutes } from '../../catalog/workflow-routes';
import { listWorkflows } from '../../core/workflows/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { workflowDeps } from '../wiring/workflows';

export const handler = httpRoute(workflowRoutes, 'listWorkflows', async ({ principal, query }) => {
  return ok({ data: await listWorkflows(workflowDeps(), principal, query.workspaceId) });
});
