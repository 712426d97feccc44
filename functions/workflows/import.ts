import { readZipArchive } from '../../adapters/archive/zip';
import { routeIn } from '../../catalog/route-definition';
import { workflowRoutes } from '../../catalog/workflow-routes';
import { ValidationError } from '../../core/errors';
import { importWorkflowArchive, importWorkflowFile } from '../../core/import/service';
import { created } from '../http/responses';
import { bodyBytesOf } from '../http/raw-body';
import { httpRoute, isRawBody } from '../http/route';
import { workflowDeps } from '../wiring/workflows';
import { accessPolicyOf } from '../wiring/permissions';

const route = routeIn(workflowRoutes, 'importWorkflow');

export const handler = httpRoute(workflowRoutes, 'importWorkflow', async (input) => {
  const { principal, query, headers, event } = input;
  if (isRawBody(route, headers)) {
    if (!query.workspaceId) {
      throw new ValidationError('An archive names its workspace in the query: ?workspaceId=', [
        { path: 'workspaceId', message: 'Required with Content-Type application/zip' },
      ]);
    }
    const workflows = await importWorkflowArchive(
      workflowDeps(),
      { principal, policy: await accessPolicyOf(principal.user) },
      {
        workspaceId: query.workspaceId,
        entries: readZipArchive(bodyBytesOf(event)),
        folderId: query.folderId,
        deploy: query.deploy === 'true',
      },
    );
    return created({ data: { workflows } });
  }
  const imported = await importWorkflowFile(
    workflowDeps(),
    { principal, policy: await accessPolicyOf(principal.user) },
    input.body,
  );
  const { id, name, deployed, warnings } = imported;
  return created({ data: { id, name, deployed, warnings } });
});
