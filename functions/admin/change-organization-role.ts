import { organizationRoutes } from '../../catalog/organization-routes';
import { changeOrganizationRole } from '../../core/identity/organizations';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { identityDeps } from '../wiring/identity';

export const handler = httpRoute(
  organizationRoutes,
  'adminChangeOrganizationRole',
  async ({ params, body }) =>
    ok({
      data: await changeOrganizationRole(identityDeps(), {
        organizationId: params.orgId,
        userId: params.userId,
        role: body.role,
      }),
    }),
);
