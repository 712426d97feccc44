/** The execution log: one entry per run, in the schema the logs API reads. */
import type { CostSummary, TraceSpan } from '../engine/types';
import type { Trigger } from '../execution/types';

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

/** Port. */
export interface ExecutionLogStore {
  /** Idempotent per executionId: a redelivered Finalize writes the same entry once. */
  putLogEntry(entry: ExecutionLogEntry): Promise<void>;
  getLogEntry(logId: string): Promise<ExecutionLogEntry | undefined>;
  getLogEntryByExecutionId(executionId: string): Promise<ExecutionLogEntry | undefined>;
}

/** Port: where unfinished runs keep their checkpoint between steps. */
export interface CheckpointStore {
  save(executionId: string, checkpoint: unknown): Promise<void>;
  load(executionId: string): Promise<unknown | undefined>;
  delete(executionId: string): Promise<void>;
}
