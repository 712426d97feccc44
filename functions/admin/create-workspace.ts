import { adminRoutes } from '../../catalog/admin-routes';
import { createWorkspace } from '../../core/identity/service';
import { created } from '../http/responses';
import { httpRoute } from '../http/route';
import { identityDeps } from '../wiring/identity';

export const handler = httpRoute(adminRoutes, 'adminCreateWorkspace', async ({ body }) =>
  created({ data: await createWorkspace(identityDeps(), body.ownerId, body.name, body.organizationId) }),
);
