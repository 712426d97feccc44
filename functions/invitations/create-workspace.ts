import { organizationRoutes } from '../../catalog/organization-routes';
import { inviteToWorkspace } from '../../core/invitations/service';
import { created } from '../http/responses';
import { httpRoute } from '../http/route';
import { invitationDeps } from '../wiring/invitations';

export const handler = httpRoute(
  organizationRoutes,
  'createWorkspaceInvitation',
  async ({ principal, permission, params, body }) =>
    created({
      data: await inviteToWorkspace(
        invitationDeps({ sendsEmail: true }),
        principal,
        {
          workspaceId: params.workspaceId,
          ...body,
        },
        permission,
      ),
    }),
);
