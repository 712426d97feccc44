import { organizationRoutes } from '../../catalog/organization-routes';
import { listOrganizationInvitations } from '../../core/invitations/service';
import { roleOf } from '../http/organizations';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { invitationDeps } from '../wiring/invitations';

export const handler = httpRoute(
  organizationRoutes,
  'listOrganizationInvitations',
  async ({ principal, permission, params }) =>
    ok({
      data: await listOrganizationInvitations(invitationDeps(), principal, params.orgId, roleOf[permission]),
    }),
);
