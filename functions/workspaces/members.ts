import { organizationRoutes } from '../../catalog/organization-routes';
import { listWorkspaceMembers } from '../../core/identity/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { identityDeps } from '../wiring/identity';

export const handler = httpRoute(
  organizationRoutes,
  'listWorkspaceMembers',
  async ({ principal, permission, params }) =>
    ok({
      data: await listWorkspaceMembers(identityDeps(), { principal, needed: permission }, params.workspaceId),
    }),
);
