import { organizationRoutes } from '../../catalog/organization-routes';
import { acceptInvitation } from '../../core/invitations/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { invitationDeps } from '../wiring/invitations';

export const handler = httpRoute(organizationRoutes, 'acceptInvitation', async ({ principal, body }) =>
  ok({ data: await acceptInvitation(invitationDeps(), principal, body.token) }),
);
