import { adminRoutes } from '../../catalog/admin-routes';
import { createOrganization } from '../../core/identity/service';
import { created } from '../http/responses';
import { httpRoute } from '../http/route';
import { identityDeps } from '../wiring/identity';

export const handler = httpRoute(adminRoutes, 'adminCreateOrganization', async ({ body }) =>
  created({ data: await createOrganization(identityDeps(), body) }),
);
