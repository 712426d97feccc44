import { revokeInvitation } from '../../core/invitations/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { invitationDeps } from '../wiring/invitations';

export const handler = httpRoute('revokeInvitation', async ({ principal, params }) =>
  ok({ data: await revokeInvitation(invitationDeps(), principal, params.invitationId) }),
);
