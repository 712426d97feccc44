import { organizationRoutes } from '../../catalog/organization-routes';
import { inviteToOrganization } from '../../core/invitations/service';
import { roleOf } from '../http/organizations';
import { created } from '../http/responses';
import { httpRoute } from '../http/route';
import { invitationDepsWithEmail } from '../wiring/invitation-email';

export const handler = httpRoute(
  organizationRoutes,
  'createOrganizationInvitation',
  async ({ principal, permission, params, body }) =>
    created({
      data: await inviteToOrganization(
        invitationDepsWithEmail(),
        principal,
        {
          organizationId: params.orgId,
          ...body,
        },
        roleOf[permission],
      ),
    }),
);
