/**
 * The execution log as the query side sees it: summaries on time-ordered indexes, read shard by
 * shard through the log's port and merged here (core/logs/merge.ts).
 */
import type { ExecutionLogEntry } from '../runs/log';
import type { Trigger } from '../triggers';

/** What a time-ordered index holds of an entry: enough to filter and to answer a basic list item. */
export interface LogSummary
  extends Pick<
    ExecutionLogEntry,
    | 'id'
    | 'workspaceId'
    | 'workflowId'
    | 'executionId'
    | 'level'
    | 'trigger'
    | 'startedAt'
    | 'endedAt'
    | 'totalDurationMs'
    | 'files'
    | 'models'
    | 'loggedAt'
  > {
  costTotal: number;
}

/** The time-ordered indexes of the log; each is split into the store's `shardCount` shards. */
export type LogIndex =
  | { by: 'workspace'; workspaceId: string }
  | { by: 'workflow'; workflowId: string }
  /** Sparse: only entries of level `error`. */
  | { by: 'workspaceErrors'; workspaceId: string };

export type LogOrder = 'asc' | 'desc';

export interface PositionBound {
  position: string;
  inclusive: boolean;
}

/** One read of one shard of one index: positions within the bounds, in order, at most `limit`. */
export interface LogRange {
  index: LogIndex;
  shard: number;
  order: LogOrder;
  lower?: PositionBound;
  upper?: PositionBound;
  limit: number;
}

export interface LogSummaryPage {
  /** Live summaries, in the range's order (entries past their retention are left out). */
  summaries: LogSummary[];
  /** Items the read cost, expired ones included: what the read budget counts. */
  itemsRead: number;
  /** Position of the last item read (also when it was left out), to continue after it. */
  lastPosition?: string;
  /** No more items in the range. */
  exhausted: boolean;
}

/** The filters of a log query, parsed; everything but the workspace is optional. */
export interface LogFilters {
  workspaceId: string;
  workflowIds?: string[];
  folderIds?: string[];
  triggers?: Trigger[];
  level?: 'info' | 'error';
  /** Inclusive bounds on the time an entry was logged (ISO 8601, UTC). */
  startDate?: string;
  endDate?: string;
  executionId?: string;
  minDurationMs?: number;
  maxDurationMs?: number;
  minCost?: number;
  maxCost?: number;
  model?: string;
}

export interface LogQuery extends LogFilters {
  limit: number;
  order: LogOrder;
  cursor?: string;
  details: 'basic' | 'full';
  includeTraceSpans: boolean;
  includeFinalOutput: boolean;
}
