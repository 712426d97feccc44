/**
 * Whether a summary matches a query's filters. Every filter is checked here, also those an index
 * already answered (workspace, level, workflow), so no index choice can widen a result; the dates
 * are answered by the read's position bounds.
 */
import type { LogFilters, LogSummary } from './types';

/** The filters with the folders already turned into workflow ids (see core/logs/service.ts). */
export type ResolvedFilters = Omit<LogFilters, 'folderIds'> & { workflowIdSet?: ReadonlySet<string> };

export function matchesFilters(summary: LogSummary, filters: ResolvedFilters): boolean {
  if (summary.workspaceId !== filters.workspaceId) return false;
  if (filters.workflowIdSet && !filters.workflowIdSet.has(summary.workflowId)) return false;
  if (filters.triggers && !filters.triggers.includes(summary.trigger)) return false;
  if (filters.level && summary.level !== filters.level) return false;
  if (filters.executionId !== undefined && summary.executionId !== filters.executionId) return false;
  if (filters.minDurationMs !== undefined && summary.totalDurationMs < filters.minDurationMs) return false;
  if (filters.maxDurationMs !== undefined && summary.totalDurationMs > filters.maxDurationMs) return false;
  if (filters.minCost !== undefined && summary.costTotal < filters.minCost) return false;
  if (filters.maxCost !== undefined && summary.costTotal > filters.maxCost) return false;
  if (filters.model !== undefined && !summary.models.includes(filters.model)) return false;
  return true;
}

/** Whether anything beyond the index and the dates must be checked item by item. */
export function hasResidualFilters(
  filters: ResolvedFilters,
  answeredByIndex: { level: boolean; workflows: boolean },
): boolean {
  return (
    (filters.workflowIdSet !== undefined && !answeredByIndex.workflows) ||
    (filters.level !== undefined && !answeredByIndex.level) ||
    filters.triggers !== undefined ||
    filters.minDurationMs !== undefined ||
    filters.maxDurationMs !== undefined ||
    filters.minCost !== undefined ||
    filters.maxCost !== undefined ||
    filters.model !== undefined
  );
}
