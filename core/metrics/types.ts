/**
 * The run counters behind the metrics route: one small record per workspace and hour, added to as
 * runs end (never computed from the log), read back hour by hour and summed into buckets.
 */
import type { DurationHistogram } from './histogram';

/** What the counters keep of one finished run. */
export interface RunOutcome {
  workspaceId: string;
  workflowId: string;
  /** ISO time the run ended: the hour it is counted in. */
  endedAt: string;
  failed: boolean;
  durationInMs: number;
  costInUsd: number;
}

export interface WorkflowCounts {
  runs: number;
  errors: number;
}

/** The counters of one workspace and hour. */
export interface HourCounters {
  /** ISO start of the hour (UTC), e.g. 2026-11-28T14:00:00.000Z. */
  hour: string;
  runs: number;
  errors: number;
  totalDurationInMs: number;
  costInUsd: number;
  durations: DurationHistogram;
  /** Runs and errors per workflow, for at most `maxWorkflowsPerHour` workflows. */
  workflows: Record<string, WorkflowCounts>;
  /** Runs of further workflows in that hour, counted without their workflow. */
  otherWorkflows: WorkflowCounts;
}

/**
 * Workflows an hour's record counts one by one: it keeps the record small (a few KB, far below
 * DynamoDB's 400 KB item) whatever a workspace runs; runs of workflows beyond it still count in
 * the totals.
 */
export const maxWorkflowsPerHour = 50;

/** Port. */
export interface MetricsStore {
  /** Adds one run to its workspace's hour, atomically (no read first). */
  recordRun(outcome: RunOutcome): Promise<void>;
  /** The hours of a workspace that start in [fromHour, toHour) and counted a run, in time order. */
  readHours(workspaceId: string, fromHour: string, toHour: string): Promise<HourCounters[]>;
}
