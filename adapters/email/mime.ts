/**
 * An e-mail as an RFC 822 message, built by nodemailer's composer. nodemailer is loaded on the first
 * message: it is kept out of the bundles (about 240 KB) and installed beside the functions that send
 * e-mail (those whose access includes `email: 'send'`, lib/bundling.ts).
 */
import type { Transporter } from 'nodemailer';
import type { EmailMessage } from '../../core/notifications/messages';

let composer: Promise<Transporter> | undefined;

function composerOf(): Promise<Transporter> {
  composer ??= import('nodemailer').then(({ default: nodemailer }) =>
    nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' }),
  );
  return composer;
}

export async function rfc822Of(message: EmailMessage, from: string): Promise<Buffer> {
  const info = await (await composerOf()).sendMail({
    from,
    to: message.to,
    subject: message.subject,
    text: message.text,
    html: message.html,
  });
  return info.message as Buffer;
}
