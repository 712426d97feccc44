import { organizationRoutes } from '../../catalog/organization-routes';
import { requireOrganization } from '../../core/identity/organizations';
import { requireOrganizationCaller } from '../http/organizations';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { identityDeps } from '../wiring/identity';

export const handler = httpRoute(organizationRoutes, 'getOrganization', async (input) => {
  const deps = identityDeps();
  const { role } = await requireOrganizationCaller(deps, input, input.params.orgId);
  return ok({ data: { ...(await requireOrganization(deps, input.params.orgId)), role } });
});
