import { workflowRoutes } from '../../catalog/workflow-routes';
import { exportWorkflow } from '../../core/import/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { workflowDeps } from '../wiring/workflows';

export const handler = httpRoute(workflowRoutes, 'exportWorkflow', async ({ principal, params, query }) => {
  const { document, warnings } = await exportWorkflow(
    workflowDeps(),
    principal,
    params.workflowId,
    query.format ?? 'graph',
  );
  return ok({ data: document, warnings });
});
