import { organizationRoutes } from '../../catalog/organization-routes';
import { listOrganizationMembers } from '../../core/identity/organizations';
import { requireOrganizationCaller } from '../http/organizations';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { identityDeps } from '../wiring/identity';

export const handler = httpRoute(organizationRoutes, 'listOrganizationMembers', async (input) => {
  const deps = identityDeps();
  await requireOrganizationCaller(deps, input, input.params.orgId);
  return ok({ data: await listOrganizationMembers(deps, input.params.orgId) });
});
