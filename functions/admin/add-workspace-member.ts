import { adminRoutes } from '../../catalog/admin-routes';
import { addWorkspaceMember } from '../../core/identity/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { identityDeps } from '../wiring/identity';

export const handler = httpRoute(adminRoutes, 'adminAddWorkspaceMember', async ({ params, body }) =>
  ok({ data: await addWorkspaceMember(identityDeps(), { workspaceId: params.workspaceId, ...body }) }),
);
