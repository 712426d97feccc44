/** The e-mail and chat messages of a completion: workflow, status, trigger, duration, cost and the log link. */
import type { CompletionEvent } from './types';

export interface EmailMessage {
  to: string[];
  subject: string;
  text: string;
  html: string;
}

/** A Slack message: incoming-webhook body, or `chat.postMessage` with `channel` added. */
export interface ChatMessage {
  text: string;
  attachments: Array<{
    color: string;
    title: string;
    title_link?: string;
    fields: Array<{ title: string; value: string; short: boolean }>;
    ts: number;
  }>;
  channel?: string;
}

export interface MessageContext {
  workflowName: string;
  /** Absolute when the service knows its public address (`PUBLIC_BASE_URL`), else a path. */
  logUrl: string;
}

function facts(event: CompletionEvent) {
  const succeeded = event.level !== 'error';
  return {
    succeeded,
    status: succeeded ? 'succeeded' : 'failed',
    duration:
      event.totalDurationMs < 1000
        ? `${event.totalDurationMs} ms`
        : `${(event.totalDurationMs / 1000).toFixed(1)} s`,
    cost: `$${event.cost.total.toFixed(4)}`,
  };
}

export const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] ?? char,
  );

export function emailMessageOf(
  event: CompletionEvent,
  recipients: string[],
  context: MessageContext,
): EmailMessage {
  const { status, duration, cost } = facts(event);
  const rows: Array<[string, string]> = [
    ['Workflow', context.workflowName],
    ['Status', status],
    ['Trigger', event.trigger],
    ['Duration', duration],
    ['Cost', cost],
    ['Started', event.startedAt],
    ['Execution', event.executionId],
    ...(event.error ? ([['Error', event.error]] as Array<[string, string]>) : []),
  ];
  return {
    to: recipients,
    subject: `Workflow "${context.workflowName}" ${status}`,
    text: `${rows.map(([name, value]) => `${name}: ${value}`).join('\n')}\n\nLog: ${context.logUrl}\n`,
    html:
      `<table>${rows.map(([name, value]) => `<tr><th align="left">${escapeHtml(name)}</th><td>${escapeHtml(value)}</td></tr>`).join('')}</table>` +
      `<p><a href="${escapeHtml(context.logUrl)}">Open the log entry</a></p>`,
  };
}

export function chatMessageOf(
  event: CompletionEvent,
  context: MessageContext,
  channel?: string,
): ChatMessage {
  const { succeeded, status, duration, cost } = facts(event);
  return {
    text: `Workflow "${context.workflowName}" ${status}`,
    attachments: [
      {
        color: succeeded ? '#2eb67d' : '#e01e5a',
        title: `Execution ${event.executionId}`,
        ...(context.logUrl.startsWith('http') ? { title_link: context.logUrl } : {}),
        fields: [
          { title: 'Status', value: status, short: true },
          { title: 'Trigger', value: event.trigger, short: true },
          { title: 'Duration', value: duration, short: true },
          { title: 'Cost', value: cost, short: true },
          ...(event.error ? [{ title: 'Error', value: event.error, short: false }] : []),
          { title: 'Log', value: context.logUrl, short: false },
        ],
        ts: Math.floor(event.timestamp / 1000),
      },
    ],
    ...(channel ? { channel } : {}),
  };
}

/** An alert as e-mail: the rule, what was observed, the workflow, and the run that fired it if any. */
export function alertEmailOf(
  firing: { rule: string; message: string; threshold: number },
  recipients: string[],
  context: MessageContext & { executionId?: string },
): EmailMessage {
  const lines = [
    `Workflow: ${context.workflowName}`,
    `Alert: ${firing.rule} (threshold ${firing.threshold})`,
    `What happened: ${firing.message}`,
    ...(context.executionId ? [`Execution: ${context.executionId}`, `Log: ${context.logUrl}`] : []),
  ];
  return {
    to: recipients,
    subject: `Alert on workflow "${context.workflowName}": ${firing.message}`,
    text: `${lines.join('\n')}\n`,
    html: `<p>${lines.map(escapeHtml).join('<br>')}</p>`,
  };
}

export function alertChatOf(
  firing: { rule: string; message: string; threshold: number },
  context: MessageContext & { executionId?: string },
  channel?: string,
): ChatMessage {
  return {
    text: `Alert on workflow "${context.workflowName}": ${firing.message}`,
    attachments: [
      {
        color: '#ecb22e',
        title: `Alert: ${firing.rule}`,
        fields: [
          { title: 'Threshold', value: String(firing.threshold), short: true },
          { title: 'What happened', value: firing.message, short: false },
          ...(context.executionId ? [{ title: 'Log', value: context.logUrl, short: false }] : []),
        ],
        ts: Math.floor(Date.now() / 1000),
      },
    ],
    ...(channel ? { channel } : {}),
  };
}
