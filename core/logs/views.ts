/** The log API's shapes: list item, log detail and execution detail, field by field as documented. */
import type { FileObject } from '../files/types';
import type { CostSummary, TraceSpan, WorkflowGraph } from '../engine/types';
import type { ExecutionLogEntry, LogEntryHead } from '../runs/log';
import { maskModelKeys } from '../workflows/model-keys';
import type { LogSummary } from './types';

export interface WorkflowRef {
  id: string;
  name: string;
  description: string;
  /** Present (true) only when the workflow no longer exists; its entries stay readable. */
  deleted?: true;
}

/** The fields a list item and a detail share. */
interface LogEntryFields {
  id: string;
  workflowId: string;
  executionId: string;
  level: 'info' | 'error';
  trigger: string;
  startedAt: string;
  endedAt: string;
  totalDurationMs: number;
}

export interface LogListItem extends LogEntryFields {
  cost: { total: number } | CostSummary;
  files: null | FileObject[];
  workflow?: WorkflowRef;
  traceSpans?: TraceSpan[];
  finalOutput?: unknown;
}

export function logListItem(summary: LogSummary): LogListItem {
  return {
    id: summary.id,
    workflowId: summary.workflowId,
    executionId: summary.executionId,
    level: summary.level,
    trigger: summary.trigger,
    startedAt: summary.startedAt,
    endedAt: summary.endedAt,
    totalDurationMs: summary.totalDurationMs,
    cost: { total: summary.costTotal },
    files: summary.files ?? null,
  };
}

/** What `details=full` and the include flags add to a list item. */
export function withExtras(
  item: LogListItem,
  extras: {
    workflow?: WorkflowRef;
    entry?: LogEntryHead | ExecutionLogEntry;
    includeTraceSpans: boolean;
    includeFinalOutput: boolean;
  },
): LogListItem {
  const result: LogListItem = { ...item };
  if (extras.workflow) result.workflow = extras.workflow;
  if (extras.entry && extras.workflow) result.cost = extras.entry.cost;
  const data = extras.entry && 'executionData' in extras.entry ? extras.entry.executionData : undefined;
  if (extras.includeTraceSpans) result.traceSpans = data?.traceSpans ?? [];
  if (extras.includeFinalOutput) result.finalOutput = data?.finalOutput ?? null;
  return result;
}

export interface LogDetail extends LogEntryFields {
  workflow: WorkflowRef;
  executionData: { traceSpans: TraceSpan[]; finalOutput: unknown; error?: string };
  cost: CostSummary;
}

export function logDetail(entry: ExecutionLogEntry, workflow: WorkflowRef): LogDetail {
  return {
    id: entry.id,
    workflowId: entry.workflowId,
    executionId: entry.executionId,
    level: entry.level,
    trigger: entry.trigger,
    startedAt: entry.startedAt,
    endedAt: entry.endedAt,
    totalDurationMs: entry.totalDurationMs,
    workflow,
    executionData: {
      traceSpans: entry.executionData.traceSpans,
      finalOutput: entry.executionData.finalOutput ?? null,
      ...(entry.executionData.error === undefined ? {} : { error: entry.executionData.error }),
    },
    cost: entry.cost,
  };
}

export interface ExecutionDetail {
  executionId: string;
  workflowId: string;
  workflowState: WorkflowGraph;
  executionMetadata: {
    trigger: string;
    startedAt: string;
    endedAt: string;
    totalDurationMs: number;
    cost: CostSummary;
  };
}

export function executionDetail(entry: LogEntryHead, graph: WorkflowGraph): ExecutionDetail {
  return {
    executionId: entry.executionId,
    workflowId: entry.workflowId,
    workflowState: {
      blocks: maskModelKeys(graph).blocks,
      edges: graph.edges,
      loops: graph.loops ?? {},
      parallels: graph.parallels ?? {},
    },
    executionMetadata: {
      trigger: entry.trigger,
      startedAt: entry.startedAt,
      endedAt: entry.endedAt,
      totalDurationMs: entry.totalDurationMs,
      cost: entry.cost,
    },
  };
}
