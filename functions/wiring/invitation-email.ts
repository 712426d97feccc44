/**
 * Invitation wiring with the e-mail channel, for the routes that send an invitation: only they load
 * nodemailer (installed beside the functions whose access includes `email: 'send'`, lib/bundling.ts).
 */
import type { InvitationDeps } from '../../core/invitations/service';
import { emailSender } from './email';
import { invitationDeps } from './invitations';

export function invitationDepsWithEmail(): InvitationDeps {
  return { ...invitationDeps(), email: emailSender() };
}
