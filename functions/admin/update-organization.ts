import { adminRoutes } from '../../catalog/admin-routes';
import { updateOrganizationLimits } from '../../core/identity/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { identityDeps } from '../wiring/identity';

export const handler = httpRoute(adminRoutes, 'adminUpdateOrganization', async ({ params, body }) =>
  ok({ data: await updateOrganizationLimits(identityDeps(), params.orgId, body) }),
);
