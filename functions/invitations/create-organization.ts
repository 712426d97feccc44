import { organizationRoutes } from '../../catalog/organization-routes';
import { inviteToOrganization } from '../../core/invitations/service';
import { roleOf } from '../http/organizations';
import { created } from '../http/responses';
import { httpRoute } from '../http/route';
import { invitationDeps } from '../wiring/invitations';

export const handler = httpRoute(
  organizationRoutes,
  'createOrganizationInvitation',
  async ({ principal, permission, params, body }) =>
    created({
      data: await inviteToOrganization(
        invitationDeps({ sendsEmail: true }),
        principal,
        {
          organizationId: params.orgId,
          ...body,
        },
        roleOf[permission],
      ),
    }),
);
