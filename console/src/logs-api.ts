/** Reading the execution log: one page, or every page of a query up to a bound. */
import { get, type Query } from './api';
import type { LogItem, LogPage } from './types';

export function logPage(workspaceId: string, query: Query): Promise<LogPage> {
  return get<LogPage>('/api/v1/logs', { workspaceId, ...query });
}

/** Follows `nextCursor` until the log has no more or `maxEntries` are read. */
export async function allLogEntries(
  workspaceId: string,
  query: Query,
  maxEntries: number,
): Promise<{ entries: LogItem[]; complete: boolean }> {
  const entries: LogItem[] = [];
  let cursor: string | undefined;
  do {
    const page = await logPage(workspaceId, {
      ...query,
      limit: Math.min(1000, maxEntries - entries.length),
      cursor,
    });
    entries.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor && entries.length < maxEntries);
  return { entries, complete: cursor === undefined };
}
