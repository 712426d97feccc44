/** The execution log: one entry per run, in the schema the logs API reads. */
import type { CostSummary, TraceSpan } from '../engine/types';
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
  totalDurationMs: number;
  cost: CostSummary;
  files: null | Array<Record<string, unknown>>;
  /** The deployed snapshot the run used (immutable, stored once per deployment). */
  deploymentVersion: number;
  /** Models used, for the logs API `model` filter. */
  models: string[];
  executionData: {
    traceSpans: TraceSpan[];
    finalOutput: unknown;
    error?: string;
  };
}

/**
 * A run has exactly one log entry, so its id follows from the execution id: a redelivered Finalize
 * then writes the same item again, which one conditional put turns into a no-op.
 */
export function logIdFor(executionId: string): string {
  return `log_${executionId}`;
}

/** Port. */
export interface ExecutionLogStore {
  /** Idempotent: the entry's id is `logIdFor(executionId)`, and a second put of it changes nothing. */
  putLogEntry(entry: ExecutionLogEntry): Promise<void>;
  getLogEntry(logId: string): Promise<ExecutionLogEntry | undefined>;
  getLogEntryByExecutionId(executionId: string): Promise<ExecutionLogEntry | undefined>;
}

/** Port: where unfinished runs keep their checkpoint between steps. */
export interface CheckpointStore {
  save(executionId: string, checkpoint: unknown): Promise<void>;
  /** Saves JSON text the caller has serialized already (to measure it), so it is not serialized twice. */
  saveJson(executionId: string, json: string): Promise<void>;
  load(executionId: string): Promise<unknown | undefined>;
  delete(executionId: string): Promise<void>;
}
