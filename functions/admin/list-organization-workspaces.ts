import { organizationRoutes } from '../../catalog/organization-routes';
import { listOrganizationWorkspaces } from '../../core/identity/organizations';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { identityDeps } from '../wiring/identity';

export const handler = httpRoute(organizationRoutes, 'adminListOrganizationWorkspaces', async ({ params }) =>
  ok({ data: await listOrganizationWorkspaces(identityDeps(), params.orgId) }),
);
