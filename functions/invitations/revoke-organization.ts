import { organizationRoutes } from '../../catalog/organization-routes';
import { revokeOrganizationInvitation } from '../../core/invitations/service';
import { roleOf } from '../http/organizations';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { invitationDeps } from '../wiring/invitations';

export const handler = httpRoute(
  organizationRoutes,
  'revokeOrganizationInvitation',
  async ({ principal, permission, params }) =>
    ok({
      data: await revokeOrganizationInvitation(
        invitationDeps(),
        principal,
        { organizationId: params.orgId, invitationId: params.invitationId },
        roleOf[permission],
      ),
    }),
);
