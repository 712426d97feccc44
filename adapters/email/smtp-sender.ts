/** E-mail through an SMTP server (`SMTP_URL`, e.g. smtp://user:pass@mail.example.com:587), with nodemailer. */
import nodemailer from 'nodemailer';
import type { EmailSender } from '../../core/notifications/types';

export function createSmtpEmailSender(options: { smtpUrl: string; from: string }): EmailSender {
  const transport = nodemailer.createTransport(options.smtpUrl);
  return {
    async send(message) {
      try {
        const info = await transport.sendMail({ from: options.from, ...message });
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
