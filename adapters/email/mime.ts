/** An e-mail as an RFC 822 message, built by nodemailer's composer. */
import nodemailer from 'nodemailer';
import type { EmailMessage } from '../../core/notifications/messages';

const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });

export async function rfc822Of(message: EmailMessage, from: string): Promise<Buffer> {
  const info = await composer.sendMail({
    from,
    to: message.to,
    subject: message.subject,
    text: message.text,
    html: message.html,
  });
  return info.message as Buffer;
}

/** `EMAIL_FROM`: the sender of notification e-mail (in AWS, an address or domain verified in SES). */
export function emailFromEnv(): string {
  return process.env.EMAIL_FROM ?? 'Workflow service <notifications@workflow-service.invalid>';
}
