/** E-mail through Amazon SES (v2 SendEmail with the raw RFC 822 message), in AWS. */
import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import type { EmailSender } from '../../core/notifications/types';
import { rfc822Of } from './mime';

export function createSesEmailSender(options: { from: string; client?: SESv2Client }): EmailSender {
  const client = options.client ?? new SESv2Client({});
  return {
    async send(message) {
      try {
        const raw = await rfc822Of(message, options.from);
        const answer = await client.send(new SendEmailCommand({ Content: { Raw: { Data: raw } } }));
        return {
          outcome: { kind: 'answered', status: 200 },
          excerpt: `SES message ${answer.MessageId ?? ''}`,
        };
      } catch (error) {
        const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
        return {
          outcome: status ? { kind: 'answered', status } : { kind: 'connection-failed' },
          error: (error as Error).message,
        };
      }
    },
  };
}
