import { organizationRoutes } from '../../catalog/organization-routes';
import { revokeWorkspaceInvitation } from '../../core/invitations/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { invitationDeps } from '../wiring/invitations';

export const handler = httpRoute(
  organizationRoutes,
  'revokeWorkspaceInvitation',
  async ({ principal, permission, params }) =>
    ok({
      data: await revokeWorkspaceInvitation(
        invitationDeps(),
        principal,
        { workspaceId: params.workspaceId, invitationId: params.invitationId },
        permission,
      ),
    }),
);
