/**
 * E-mail through an SMTP server (`SMTP_URL`, e.g. smtp://user:pass@mail.example.com:587), with
 * nodemailer, loaded on the first message (see ./mime.ts).
 */
import type { Transporter } from 'nodemailer';
import type { EmailSender } from '../../core/notifications/types';

export function createSmtpEmailSender(options: { smtpUrl: string; from: string }): EmailSender {
  let transport: Promise<Transporter> | undefined;
  return {
    async send(message) {
      transport ??= import('nodemailer').then(({ default: nodemailer }) =>
        nodemailer.createTransport(options.smtpUrl),
      );
      const ready = await transport;
      try {
        const info = await ready.sendMail({ from: options.from, ...message });
        return {
          outcome: { kind: 'answered', status: 200 },
          excerpt: String(info.response ?? '').slice(0, 500),
        };
      } catch (error) {
        const code = (error as { responseCode?: number }).responseCode;
        // 4xx SMTP replies are transient (try again), 5xx permanent.
        if (typeof code === 'number') {
          return {
            outcome: { kind: 'answered', status: code >= 500 ? 400 : 503 },
            error: (error as Error).message,
          };
        }
        return { outcome: { kind: 'connection-failed' }, error: (error as Error).message };
      }
    },
  };
}
