import { organizationRoutes } from '../../catalog/organization-routes';
import { removeOrganizationMember } from '../../core/identity/organizations';
import { requireOrganizationCaller } from '../http/organizations';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { identityDeps } from '../wiring/identity';

export const handler = httpRoute(organizationRoutes, 'removeOrganizationMember', async (input) => {
  const deps = identityDeps();
  await requireOrganizationCaller(deps, input, input.params.orgId);
  return ok({ data: await removeOrganizationMember(deps, input.params.orgId, input.params.userId) });
});
