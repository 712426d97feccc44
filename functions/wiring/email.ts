/** The e-mail channel: `SMTP_URL` when set; else locally the outbox; else (in AWS) SES. */
import { emailFromEnv } from '../../adapters/email/mime';
import { createOutboxEmailSender } from '../../adapters/email/outbox-sender';
import { createSesEmailSender } from '../../adapters/email/ses-sender';
import { createSmtpEmailSender } from '../../adapters/email/smtp-sender';
import type { EmailSender } from '../../core/notifications/types';

export function emailSender(): EmailSender {
  const from = emailFromEnv();
  if (process.env.SMTP_URL) return createSmtpEmailSender({ smtpUrl: process.env.SMTP_URL, from });
  const outbox = process.env.NOTIFICATION_OUTBOX_DIR;
  if (outbox) return createOutboxEmailSender({ outboxDir: outbox, from });
  return createSesEmailSender({ from });
}
