import { adminRoutes } from '../../catalog/admin-routes';
import { importWorkflowFile } from '../../core/import/service';
import { created } from '../http/responses';
import { httpRoute } from '../http/route';
import { workflowDeps } from '../wiring/workflows';

export const handler = httpRoute(adminRoutes, 'adminImportWorkflow', async ({ body }) => {
  const { state, workflow, ...rest } = body;
  const imported = await importWorkflowFile(
    workflowDeps(),
    { operator: true },
    { ...rest, workflow: workflow ?? state },
  );
  return created({ data: imported.view, warnings: imported.warnings });
});
