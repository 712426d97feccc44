import { organizationRoutes } from '../../catalog/organization-routes';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { identityDeps } from '../wiring/identity';

export const handler = httpRoute(organizationRoutes, 'adminListOrganizations', async () =>
  ok({ data: await identityDeps().store.listOrganizations() }),
);
