import { workspaceRoutes } from '../../catalog/workspace-routes';
import { getWorkspace } from '../../core/identity/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { identityDeps } from '../wiring/identity';

export const handler = httpRoute(workspaceRoutes, 'getWorkspace', async ({ principal, params }) =>
  ok({ data: await getWorkspace(identityDeps(), principal, params.workspaceId) }),
);
