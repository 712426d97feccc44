import { adminRoutes } from '../../catalog/admin-routes';
import { removeWorkspaceMember } from '../../core/identity/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { identityDeps } from '../wiring/identity';

export const handler = httpRoute(adminRoutes, 'adminRemoveWorkspaceMember', async ({ params, query }) =>
  ok({ data: await removeWorkspaceMember(identityDeps(), params.workspaceId, query.userId) }),
);
