import { adminRoutes } from '../../catalog/admin-routes';
import { updateUserLimits } from '../../core/identity/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { identityDeps } from '../wiring/identity';

export const handler = httpRoute(adminRoutes, 'adminUpdateUser', async ({ params, body }) =>
  ok({ data: await updateUserLimits(identityDeps(), params.userId, body) }),
);
