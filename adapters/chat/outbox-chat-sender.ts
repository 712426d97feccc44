/**
 * Locally, a chat message whose endpoint cannot be reached (refused by the guard, or no answer) is
 * written to `<outbox>/chat/<id>.json`, the Slack request body, so it can be read; reachable
 * endpoints (a receiver allowed by OUTBOUND_ALLOWLIST) still get it.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { ChatMessage } from '../../core/notifications/messages';
import type { ChatSender, ChatTarget, SendResult } from '../../core/notifications/types';

export function withChatOutbox(inner: ChatSender, outboxDir: string): ChatSender {
  return {
    async send(target: ChatTarget, message: ChatMessage): Promise<SendResult> {
      const result = await inner.send(target, message);
      if (result.outcome.kind !== 'refused' && result.outcome.kind !== 'connection-failed') return result;
      const dir = join(outboxDir, 'chat');
      await mkdir(dir, { recursive: true });
      const file = join(dir, `${randomUUID()}.json`);
      const body = 'webhookUrl' in target ? message : { ...message, channel: target.channel };
      await writeFile(file, `${JSON.stringify(body, null, 2)}\n`);
      return {
        outcome: { kind: 'answered', status: 200 },
        excerpt: `Written to the outbox (${result.error ?? 'endpoint not reachable'})`,
      };
    },
  };
}
