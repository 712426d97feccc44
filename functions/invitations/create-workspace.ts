import { organizationRoutes } from '../../catalog/organization-routes';
import { inviteToWorkspace } from '../../core/invitations/service';
import { created } from '../http/responses';
import { httpRoute } from '../http/route';
import { invitationDepsWithEmail } from '../wiring/invitation-email';

export const handler = httpRoute(
  organizationRoutes,
  'createWorkspaceInvitation',
  async ({ principal, permission, params, body }) =>
    created({
      data: await inviteToWorkspace(
        invitationDepsWithEmail(),
        principal,
        {
          workspaceId: params.workspaceId,
          ...body,
        },
        permission,
      ),
    }),
);
