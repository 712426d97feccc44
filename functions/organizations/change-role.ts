import { organizationRoutes } from '../../catalog/organization-routes';
import { changeOrganizationRole } from '../../core/identity/organizations';
import { requireOrganizationCaller } from '../http/organizations';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { identityDeps } from '../wiring/identity';

export const handler = httpRoute(organizationRoutes, 'changeOrganizationRole', async (input) => {
  const deps = identityDeps();
  const { params, body } = input;
  await requireOrganizationCaller(deps, input, params.orgId);
  return ok({
    data: await changeOrganizationRole(deps, {
      organizationId: params.orgId,
      userId: params.userId,
      role: body.role,
    }),
  });
});
