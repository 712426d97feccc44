import { organizationRoutes } from '../../catalog/organization-routes';
import { removeOrganizationMember } from '../../core/identity/organizations';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { identityDeps } from '../wiring/identity';

export const handler = httpRoute(
  organizationRoutes,
  'adminRemoveOrganizationMember',
  async ({ params, query }) =>
    ok({ data: await removeOrganizationMember(identityDeps(), params.orgId, query.userId) }),
);
