import { organizationRoutes } from '../../catalog/organization-routes';
import { listOrganizationMembers } from '../../core/identity/organizations';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { identityDeps } from '../wiring/identity';

export const handler = httpRoute(organizationRoutes, 'adminListOrganizationMembers', async ({ params }) =>
  ok({ data: await listOrganizationMembers(identityDeps(), params.orgId) }),
);
