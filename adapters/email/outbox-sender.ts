/** Locally without SMTP_URL: each e-mail is written to `<outbox>/email/<id>.eml`, a real RFC 822 message. */
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EmailSender } from '../../core/notifications/types';
import { rfc822Of } from './mime';

export function createOutboxEmailSender(options: { outboxDir: string; from: string }): EmailSender {
  return {
    async send(message) {
      const dir = join(options.outboxDir, 'email');
      await mkdir(dir, { recursive: true });
      const name = `${randomUUID()}.eml`;
      await writeFile(join(dir, name), await rfc822Of(message, options.from));
      return { outcome: { kind: 'answered', status: 200 }, excerpt: `Written to the outbox as ${name}` };
    },
  };
}
