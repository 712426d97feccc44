/** The logs of a filter as CSV (RFC 4180: quoted where needed, CRLF line ends). */
import type { LogItem } from './types';

export const csvColumns = [
  'Workflow',
  'Started',
  'Status',
  'Trigger',
  'Duration (ms)',
  'Cost (USD)',
  'Execution ID',
];

function cell(value: string | number): string {
  const text = String(value);
  // A leading =, +, - or @ would be a formula in a spreadsheet: quoted with a leading apostrophe.
  const safe = /^[=+\-@]/.test(text) && typeof value === 'string' ? `'${text}` : text;
  return /[",\r\n]/.test(safe) || safe !== text ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function logsCsv(entries: LogItem[], workflowName: (id: string) => string): string {
  const lines = [csvColumns.map(cell).join(',')];
  for (const entry of entries)
    lines.push(
      [
        workflowName(entry.workflowId),
        entry.startedAt,
        entry.level === 'error' ? 'error' : 'success',
        entry.trigger,
        entry.totalDurationMs,
        entry.cost?.total ?? 0,
        entry.executionId,
      ]
        .map(cell)
        .join(','),
    );
  return `${lines.join('\r\n')}\r\n`;
}
