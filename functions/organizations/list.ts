import { organizationRoutes } from '../../catalog/organization-routes';
import { listMyOrganizations, requireOrganizationsEnabled } from '../../core/identity/organizations';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { identityDeps } from '../wiring/identity';
import { switchesSetting } from '../settings';

export const handler = httpRoute(organizationRoutes, 'listOrganizations', async ({ principal }) => {
  requireOrganizationsEnabled(switchesSetting());
  return ok({ data: await listMyOrganizations(identityDeps(), principal) });
});
