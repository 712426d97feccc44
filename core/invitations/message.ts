/** The invitation e-mail: who invites, into what, the token and how to accept it. */
import { escapeHtml } from '../notifications/messages';
import type { EmailMessage } from '../notifications/messages';

export function invitationMessage(input: {
  to: string;
  inviter: string;
  into: { kind: 'organization' | 'workspace'; name: string };
  token: string;
  expiresAt: Date;
  acceptUrl: string;
}): EmailMessage {
  const lines = [
    `${input.inviter} invites you to the ${input.into.kind} "${input.into.name}".`,
    `To accept, send this token with your API key before ${input.expiresAt.toISOString()}:`,
    `POST ${input.acceptUrl}`,
    `{"token": "${input.token}"}`,
    'If you did not expect this invitation, ignore this e-mail.',
  ];
  return {
    to: [input.to],
    subject: `Invitation to the ${input.into.kind} ${input.into.name}`,
    text: `${lines.join('\n\n')}\n`,
    html: `<p>${lines.map(escapeHtml).join('</p><p>')}</p>`,
  };
}
