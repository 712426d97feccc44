/**
 * The log API's use cases: query a workspace's log (index choice, the fill loop, cursors), read one
 * entry, and read the graph a run executed. Every read checks workspace membership; another
 * tenant's entry is the same 404 as one that does not exist.
 */
import { type FilePresigner, withFreshFileUrls } from '../files/collect';
import { NotFoundError } from '../errors';
import type { Principal } from '../identity/service';
import { requireWorkspaceAccess } from '../identity/access';
import type { IdentityStore } from '../identity/types';
import { draftVersion } from '../runs/draft';
import { type ExecutionLogStore, logIdFor, type LogEntryHead } from '../runs/log';
import type { WorkflowStore } from '../workflows/types';
import { type CursorKeySource, decodeCursor, encodeCursor } from './cursor';
import { hasResidualFilters, matchesFilters, type ResolvedFilters } from './filters';
import { type FillResult, fillPage } from './merge';
import { logPositionOf } from './position';
import type { LogFilters, LogIndex, LogQuery, LogSummary } from './types';
import {
  type ExecutionDetail,
  executionDetail,
  type LogDetail,
  type LogListItem,
  logDetail,
  logListItem,
  withExtras,
  type WorkflowRef,
} from './views';

export interface LogDeps {
  identity: IdentityStore;
  logs: ExecutionLogStore;
  workflows: Pick<WorkflowStore, 'getWorkflow' | 'listWorkflows' | 'getDeployment'>;
  cursorKey: CursorKeySource;
  now: () => Date;
  /**
   * How long a write may take from its `loggedAt` to being readable. Ascending reads stop this far
   * before now, so a poller never moves past an entry that is still being written.
   */
  settleInMs: number;
  /** Items one page may read; default `defaultReadBudget(limit)`. */
  readBudgetInItems?: number;
  /** Presigns the URLs of the files in entries anew: an entry is read long after its URLs were made. */
  presignFile?: FilePresigner;
}

/** Above this many workflows a query reads the workspace's index and filters, not one index per workflow. */
export const maxWorkflowIndexes = 4;

export function defaultReadBudget(limit: number): number {
  return Math.max(2_000, 3 * limit);
}

export interface LogPage {
  data: LogListItem[];
  nextCursor?: string;
  /**
   * Ascending queries whose date range is still open: where the next poll resumes once this page is
   * the last, so entries logged since are read exactly once.
   */
  pollCursor?: string;
  /** Items the page read (for the benchmark and the logs; not part of the answer). */
  itemsRead: number;
}

export async function listLogs(deps: LogDeps, principal: Principal, query: LogQuery): Promise<LogPage> {
  await requireWorkspaceAccess(deps.identity, principal.user.id, query.workspaceId, 'read');
  const filters = filtersOf(query);
  const after = query.cursor
    ? await decodeCursor(deps.cursorKey, query.cursor, filters, query.order)
    : undefined;
  const watermark =
    query.order === 'asc' ? new Date(deps.now().getTime() - deps.settleInMs).toISOString() : undefined;
  const resolved = await resolveFilters(deps, filters);
  const fill = await fillFor(deps, query, resolved, { after, watermark });
  const data = await withFreshFileUrls(
    await Promise.all(await extrasOf(deps, query, fill.matches)),
    deps.presignFile,
    query.workspaceId,
  );
  const pollOpen = query.order === 'asc' && (!query.endDate || (watermark as string) < query.endDate);
  return {
    data,
    ...(fill.nextAfter !== undefined || fill.budgetSpent
      ? { nextCursor: await encodeCursor(deps.cursorKey, filters, query.order, fill.nextAfter) }
      : pollOpen
        ? { pollCursor: await encodeCursor(deps.cursorKey, filters, query.order, fill.lastExamined) }
        : {}),
    itemsRead: fill.itemsRead,
  };
}

/** The filters a cursor is bound to: the query without its paging and presentation parameters. */
function filtersOf(query: LogQuery): LogFilters {
  const {
    limit: _l,
    order: _o,
    cursor: _c,
    details: _d,
    includeTraceSpans: _t,
    includeFinalOutput: _f,
    ...filters
  } = query;
  return filters;
}

/** Folders name workflows: a folder filter matches the workflows in the folder now. */
async function resolveFilters(deps: LogDeps, filters: LogFilters): Promise<ResolvedFilters> {
  const { folderIds, workflowIds, ...rest } = filters;
  let ids: Set<string> | undefined = workflowIds ? new Set(workflowIds) : undefined;
  if (folderIds) {
    const folders = new Set(folderIds);
    const inFolders = (await deps.workflows.listWorkflows(filters.workspaceId))
      .filter((workflow) => workflow.folderId !== null && folders.has(workflow.folderId))
      .map((workflow) => workflow.id);
    ids = new Set(ids ? inFolders.filter((id) => ids?.has(id)) : inFolders);
  }
  return ids ? { ...rest, workflowIdSet: ids } : rest;
}

async function fillFor(
  deps: LogDeps,
  query: LogQuery,
  filters: ResolvedFilters,
  bounds: { after?: string; watermark?: string },
): Promise<FillResult> {
  if (filters.workflowIdSet?.size === 0)
    return { matches: [], itemsRead: 0, budgetSpent: false, lastExamined: bounds.after };
  if (filters.executionId !== undefined) return oneExecution(deps, query, filters, bounds);
  const { indexes, answered } = indexesFor(filters);
  return fillPage(deps.logs, {
    indexes,
    order: query.order,
    startDate: query.startDate,
    endDate: query.endDate,
    ...bounds,
    limit: query.limit,
    matches: (summary) => matchesFilters(summary, filters),
    readBudgetInItems: deps.readBudgetInItems ?? defaultReadBudget(query.limit),
    selective: hasResidualFilters(filters, answered),
  });
}

/**
 * The index that answers the most of the query: errors have their own (they are what people look
 * for, and few); a handful of workflows read one index each; anything else reads the workspace's.
 */
function indexesFor(filters: ResolvedFilters): {
  indexes: LogIndex[];
  answered: { level: boolean; workflows: boolean };
} {
  const { workspaceId, workflowIdSet } = filters;
  if (filters.level === 'error') {
    return { indexes: [{ by: 'workspaceErrors', workspaceId }], answered: { level: true, workflows: false } };
  }
  if (workflowIdSet && workflowIdSet.size <= maxWorkflowIndexes) {
    return {
      indexes: [...workflowIdSet].map((workflowId) => ({ by: 'workflow', workflowId })),
      answered: { level: false, workflows: true },
    };
  }
  return { indexes: [{ by: 'workspace', workspaceId }], answered: { level: false, workflows: false } };
}

/** An execution id names at most one entry: one read, no index. */
async function oneExecution(
  deps: LogDeps,
  query: LogQuery,
  filters: ResolvedFilters,
  bounds: { after?: string; watermark?: string },
): Promise<FillResult> {
  const empty: FillResult = { matches: [], itemsRead: 1, budgetSpent: false, lastExamined: bounds.after };
  if (bounds.after !== undefined) return empty;
  const [entry] = await deps.logs.getLogEntries([logIdFor(filters.executionId as string)], {
    executionData: false,
  });
  if (!entry) return empty;
  const summary: LogSummary = { ...entry, costTotal: entry.cost.total };
  const position = logPositionOf(summary);
  const inRange =
    (!query.startDate || entry.loggedAt >= query.startDate) &&
    (!query.endDate || entry.loggedAt <= query.endDate) &&
    (!bounds.watermark || entry.loggedAt <= bounds.watermark);
  if (!inRange || !matchesFilters(summary, filters)) return empty;
  return { matches: [summary], itemsRead: 1, budgetSpent: false, lastExamined: position };
}

/** What `details=full` and the include flags add: whole entries in one batch, workflows once each. */
async function extrasOf(
  deps: LogDeps,
  query: LogQuery,
  matches: LogSummary[],
): Promise<Array<Promise<LogListItem>>> {
  const full = query.details === 'full';
  // The interface: `details=full` adds traceSpans and finalOutput as the include flags do.
  const includeTraceSpans = full || query.includeTraceSpans;
  const includeFinalOutput = full || query.includeFinalOutput;
  const withData = includeTraceSpans || includeFinalOutput;
  if (!full && !withData) return matches.map(async (summary) => logListItem(summary));
  const ids = matches.map((summary) => summary.id);
  const entries: Array<LogEntryHead> = withData
    ? await deps.logs.getLogEntries(ids, { executionData: true })
    : await deps.logs.getLogEntries(ids, { executionData: false });
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  const workflows = new Map<string, Promise<WorkflowRef>>();
  if (full) {
    for (const summary of matches) {
      if (!workflows.has(summary.workflowId))
        workflows.set(summary.workflowId, workflowRefOf(deps, summary.workflowId));
    }
  }
  return matches.map(async (summary) =>
    withExtras(logListItem(summary), {
      workflow: full ? await workflows.get(summary.workflowId) : undefined,
      entry: byId.get(summary.id),
      includeTraceSpans,
      includeFinalOutput,
    }),
  );
}

async function workflowRefOf(deps: Pick<LogDeps, 'workflows'>, workflowId: string): Promise<WorkflowRef> {
  const workflow = await deps.workflows.getWorkflow(workflowId);
  if (!workflow) return { id: workflowId, name: 'Deleted workflow', description: '', deleted: true };
  return { id: workflow.id, name: workflow.name, description: workflow.description };
}

/** One entry by its log id, with its execution data. */
export async function getLogDetail(deps: LogDeps, principal: Principal, logId: string): Promise<LogDetail> {
  const notFound = `Log entry ${logId} not found`;
  const entry = await deps.logs.getLogEntry(logId);
  if (!entry) throw new NotFoundError(notFound);
  await requireWorkspaceAccess(deps.identity, principal.user.id, entry.workspaceId, 'read', notFound);
  return withFreshFileUrls(
    logDetail(entry, await workflowRefOf(deps, entry.workflowId)),
    deps.presignFile,
    entry.workspaceId,
  );
}

/** The graph a run executed: its deployment, or for a draft run the graph kept with its entry. */
export async function getExecutionDetail(
  deps: LogDeps,
  principal: Principal,
  executionId: string,
): Promise<ExecutionDetail> {
  const notFound = `Execution ${executionId} not found`;
  const entry = await deps.logs.getLogEntryByExecutionId(executionId);
  if (!entry) throw new NotFoundError(notFound);
  await requireWorkspaceAccess(deps.identity, principal.user.id, entry.workspaceId, 'read', notFound);
  if (entry.deploymentVersion === draftVersion) {
    if (!entry.workflowState)
      throw new NotFoundError(`The graph of draft execution ${executionId} was not kept`);
    return executionDetail(entry, entry.workflowState);
  }
  const deployment = await deps.workflows.getDeployment(entry.workflowId, entry.deploymentVersion);
  if (!deployment) {
    throw new Error(`Deployment ${entry.deploymentVersion} of workflow ${entry.workflowId} is missing`);
  }
  return executionDetail(entry, deployment.state);
}
