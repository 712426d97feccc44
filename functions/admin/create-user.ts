import { adminRoutes } from '../../catalog/admin-routes';
import { createUser } from '../../core/identity/service';
import { created } from '../http/responses';
import { httpRoute } from '../http/route';
import { identityDeps } from '../wiring/identity';

export const handler = httpRoute(adminRoutes, 'adminCreateUser', async ({ body }) =>
  created({ data: await createUser(identityDeps(), body) }),
);
