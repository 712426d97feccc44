import { adminRoutes } from '../../catalog/admin-routes';
import { addOrganizationMember } from '../../core/identity/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { identityDeps } from '../wiring/identity';

export const handler = httpRoute(adminRoutes, 'adminAddOrganizationMember', async ({ params, body }) =>
  ok({ data: await addOrganizationMember(identityDeps(), { organizationId: params.orgId, ...body }) }),
);
