import { workspaceRoutes } from '../../catalog/workspace-routes';
import { listWorkspaces } from '../../core/identity/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { identityDeps } from '../wiring/identity';

export const handler = httpRoute(workspaceRoutes, 'listWorkspaces', async ({ principal }) =>
  ok({ data: await listWorkspaces(identityDeps(), principal) }),
);
