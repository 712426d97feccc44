import { environmentRoutes } from '../../catalog/environment-routes';
import { deleteEnvironmentVariable } from '../../core/environment/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { environmentDeps } from '../wiring/environment';

export const handler = httpRoute(
  environmentRoutes,
  'deleteEnvironmentVariable',
  async ({ principal, params }) =>
    ok({
      data: await deleteEnvironmentVariable(environmentDeps(), principal, params.workspaceId, params.name),
    }),
);
