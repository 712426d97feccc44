/**
 * ChatSender for Slack: an incoming-webhook URL gets the message as it is; with a bot token the
 * message goes to `chat.postMessage` (`SLACK_API_URL`, default https://slack.com/api) for its
 * channel. Both through the guarded client. Slack answers 200 with `{ok: false, error}` for a refused
 * message: a failure, tried again only when Slack says it is rate limited.
 */
import type { HttpClient } from '../../core/net/http';
import type { ChatMessage } from '../../core/notifications/messages';
import { postJson } from '../../core/notifications/attempts';
import type { ChatSender, ChatTarget, SendResult } from '../../core/notifications/types';

export const defaultSlackApiUrl = 'https://slack.com/api';

export function createSlackChatSender(options: { http: HttpClient; slackApiUrl?: string }): ChatSender {
  const api = (options.slackApiUrl ?? defaultSlackApiUrl).replace(/\/$/, '');
  return {
    async send(target: ChatTarget, message: ChatMessage): Promise<SendResult> {
      if ('webhookUrl' in target) {
        const { channel: _channel, ...body } = message;
        return postJson(
          options.http,
          target.webhookUrl,
          { 'content-type': 'application/json' },
          JSON.stringify(body),
        );
      }
      const result = await postJson(
        options.http,
        `${api}/chat.postMessage`,
        { 'content-type': 'application/json; charset=utf-8', authorization: `Bearer ${target.token}` },
        JSON.stringify({ ...message, channel: target.channel }),
      );
      return withSlackVerdict(result);
    },
  };
}

function withSlackVerdict(result: SendResult): SendResult {
  if (result.outcome.kind !== 'answered' || result.outcome.status !== 200 || !result.excerpt) return result;
  let answer: { ok?: boolean; error?: string };
  try {
    answer = JSON.parse(result.excerpt);
  } catch {
    return result;
  }
  if (answer.ok !== false) return result;
  const limited = answer.error === 'ratelimited';
  return {
    outcome: { kind: 'answered', status: limited ? 429 : 400 },
    excerpt: result.excerpt,
    error: `Slack refused the message: ${answer.error ?? 'unknown error'}`,
  };
}
