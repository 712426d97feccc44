/**
 * SES v2's SendEmail with a raw message (adapters/email/ses-sender.ts): the message is written to the
 * local outbox (`<outbox>/email/<id>.eml`), where the source mode's e-mail goes too.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AwsApiError, type AwsApiService } from './aws-api-server';

export function createSesApi(outboxDir: string): AwsApiService {
  return {
    claims: { path: '/v2/email/outbound-emails' },
    async handle({ body }) {
      const raw = (body.Content as { Raw?: { Data?: string } } | undefined)?.Raw?.Data;
      if (!raw) throw new AwsApiError('BadRequestException', 'Only raw messages are sent locally');
      const id = randomUUID();
      const dir = join(outboxDir, 'email');
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, `${id}.eml`), Buffer.from(raw, 'base64'));
      return { MessageId: id };
    },
  };
}
