/** The execution log: one entry per run, in the schema the logs API reads. */
import type { FileObject } from '../files/types';
import type { CostSummary, TraceSpan, WorkflowGraph } from '../engine/types';
import type { LogIndexReader } from '../logs/merge';
import type { Trigger } from './types';

export interface ExecutionLogEntry {
  id: string;
  workspaceId: string;
  workflowId: string;
  executionId: string;
  level: 'info' | 'error';
  trigger: Trigger;
  startedAt: string;
  endedAt: string;
  /**
   * When the entry was written: its place in the log's time order (core/logs/position.ts). Taken
   * just before the write, so an entry never lands far behind a reader that is polling forward.
   */
  loggedAt: string;
  totalDurationMs: number;
  cost: CostSummary;
  files: null | FileObject[];
  /** The deployed snapshot the run used (immutable, stored once per deployment). */
  deploymentVersion: number;
  /** Models used, for the logs API `model` filter. */
  models: string[];
  executionData: {
    traceSpans: TraceSpan[];
    finalOutput: unknown;
    error?: string;
  };
  /**
   * The graph a draft run (deployment version 0) used: drafts change, so it is kept with the entry;
   * a deployed run's graph is its immutable deployment.
   */
  workflowState?: WorkflowGraph;
}

/** An entry without its execution data and draft graph (the large parts, read only when asked for). */
export type LogEntryHead = Omit<ExecutionLogEntry, 'executionData' | 'workflowState'>;

/**
 * A run has exactly one log entry, so its id follows from the execution id: a redelivered Finalize
 * then writes the same item again, which one conditional put turns into a no-op.
 */
export function logIdFor(executionId: string): string {
  return `log_${executionId}`;
}

/** Port. Entries past the retention period read as missing. */
export interface ExecutionLogStore extends LogIndexReader {
  /**
   * Idempotent: the entry's id is `logIdFor(executionId)`, and a second put of it changes nothing.
   * True when this put wrote the entry, false when an earlier one had (a redelivered Finalize).
   */
  putLogEntry(entry: ExecutionLogEntry): Promise<boolean>;
  getLogEntry(logId: string): Promise<ExecutionLogEntry | undefined>;
  getLogEntryByExecutionId(executionId: string): Promise<ExecutionLogEntry | undefined>;
  /** The entries of these ids (any order; missing ones left out), with their large parts only if asked. */
  getLogEntries(logIds: string[], options: { executionData: true }): Promise<ExecutionLogEntry[]>;
  getLogEntries(logIds: string[], options: { executionData: false }): Promise<LogEntryHead[]>;
}

/** Port: where unfinished runs keep their checkpoint between steps. */
export interface CheckpointStore {
  save(executionId: string, checkpoint: unknown): Promise<void>;
  /** Saves JSON text the caller has serialized already (to measure it), so it is not serialized twice. */
  saveJson(executionId: string, json: string): Promise<void>;
  load(executionId: string): Promise<unknown | undefined>;
  delete(executionId: string): Promise<void>;
}
