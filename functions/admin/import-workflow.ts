import { adminRoutes } from '../../catalog/admin-routes';
import type { WorkflowGraph } from '../../core/engine/types';
import { importWorkflow } from '../../core/workflows/service';
import { created } from '../http/responses';
import { httpRoute } from '../http/route';
import { workflowDeps } from '../wiring/workflows';

export const handler = httpRoute(adminRoutes, 'adminImportWorkflow', async ({ body }) =>
  created({ data: await importWorkflow(workflowDeps(), { ...body, state: body.state as WorkflowGraph }) }),
);
