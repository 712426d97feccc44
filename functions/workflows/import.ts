import { readZipArchive } from '../../adapters/archive/zip';
import { routeIn } from '../../catalog/route-definition';
import { workflowRoutes } from '../../catalog/workflow-routes';
import { ValidationError } from '../../core/errors';
import { type ImportWarning, importWorkflowArchive, importWorkflowFile } from '../../core/import/service';
import { created } from '../http/responses';
import { bodyBytesOf } from '../http/raw-body';
import { httpRoute, isRawBody } from '../http/route';
import { workflowDeps } from '../wiring/workflows';
import { saveWarnings } from './save-warnings';

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
      { principal },
      {
        workspaceId: query.workspaceId,
        entries: readZipArchive(bodyBytesOf(event)),
        folderId: query.folderId,
        deploy: query.deploy === 'true',
      },
    );
    return created({ data: { workflows } });
  }
  const imported = await importWorkflowFile(workflowDeps(), { principal }, input.body);
  // What any save answers beside: blocks the importer's permission group does not allow.
  const { warnings: saved = [] } = await saveWarnings(principal.user, undefined, () => imported.view.state);
  const warnings: ImportWarning[] = [
    ...imported.warnings,
    ...(saved as { blockId: string; message: string }[]).map(({ blockId, message }) => ({
      blockId,
      message,
    })),
  ];
  const { id, name, deployed } = imported;
  return created({ data: { id, name, deployed, warnings } });
});
