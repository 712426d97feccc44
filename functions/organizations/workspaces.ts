import { organizationRoutes } from '../../catalog/organization-routes';
import { listOrganizationWorkspaces } from '../../core/identity/organizations';
import { requireOrganizationCaller } from '../http/organizations';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { identityDeps } from '../wiring/identity';

export const handler = httpRoute(organizationRoutes, 'listOrganizationWorkspaces', async (input) => {
  const deps = identityDeps();
  await requireOrganizationCaller(deps, input, input.params.orgId);
  return ok({ data: await listOrganizationWorkspaces(deps, input.params.orgId) });
});
