import { organizationRoutes } from '../../catalog/organization-routes';
import { listWorkspaceMembers } from '../../core/identity/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { identityDeps } from '../wiring/identity';

export const handler = httpRoute(organizationRoutes, 'adminListWorkspaceMembers', async ({ params }) =>
  ok({ data: await listWorkspaceMembers(identityDeps(), undefined, params.workspaceId) }),
);
