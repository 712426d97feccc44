import { environmentRoutes } from '../../catalog/environment-routes';
import { listEnvironmentVariables } from '../../core/environment/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { environmentDeps } from '../wiring/environment';

export const handler = httpRoute(
  environmentRoutes,
  'listEnvironmentVariables',
  async ({ principal, params }) =>
    ok({ data: await listEnvironmentVariables(environmentDeps(), principal, params.workspaceId) }),
);
