import { organizationRoutes } from '../../catalog/organization-routes';
import { readSwitches } from '../../core/config/switches';
import { listMyOrganizations, requireOrganizationsEnabled } from '../../core/identity/organizations';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { identityDeps } from '../wiring/identity';

export const handler = httpRoute(organizationRoutes, 'listOrganizations', async ({ principal }) => {
  requireOrganizationsEnabled(readSwitches());
  return ok({ data: await listMyOrganizations(identityDeps(), principal) });
});
