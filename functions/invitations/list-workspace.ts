import { organizationRoutes } from '../../catalog/organization-routes';
import { listWorkspaceInvitations } from '../../core/invitations/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { invitationDeps } from '../wiring/invitations';

export const handler = httpRoute(
  organizationRoutes,
  'listWorkspaceInvitations',
  async ({ principal, permission, params }) =>
    ok({ data: await listWorkspaceInvitations(invitationDeps(), principal, params.workspaceId, permission) }),
);
