/** The e-mail channel: `SMTP_URL` when set; else locally the outbox; else (in AWS) SES. */
import { createOutboxEmailSender } from '../../adapters/email/outbox-sender';
import { createSesEmailSender } from '../../adapters/email/ses-sender';
import { createSmtpEmailSender } from '../../adapters/email/smtp-sender';
import type { EmailSender } from '../../core/notifications/types';
import { setting } from '../settings';
import { optionalEnv } from '../../adapters/aws/require-env';

export function emailSender(): EmailSender {
  const from = setting('EMAIL_FROM');
  const smtpUrl = setting('SMTP_URL');
  if (smtpUrl) return createSmtpEmailSender({ smtpUrl, from });
  // Locally the stack gives an outbox for e-mail that has no server to go to.
  const outbox = optionalEnv('NOTIFICATION_OUTBOX_DIR');
  if (outbox) return createOutboxEmailSender({ outboxDir: outbox, from });
  return createSesEmailSender({ from });
}
