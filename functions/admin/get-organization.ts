import { organizationRoutes } from '../../catalog/organization-routes';
import { requireOrganization } from '../../core/identity/organizations';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { identityDeps } from '../wiring/identity';

export const handler = httpRoute(organizationRoutes, 'adminGetOrganization', async ({ params }) =>
  ok({ data: await requireOrganization(identityDeps(), params.orgId) }),
);
