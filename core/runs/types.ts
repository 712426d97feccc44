/**
 * The messages that travel through the execution state machine (catalog/execution-definition.ts).
 * Kept small: the deployed snapshot and large results are loaded by reference, never carried.
 */
import type { BlockLog } from './block-logs';
import type { CostSummary, RunResult } from '../engine/types';
import type { AccessPolicy } from '../permissions/types';

import type { Trigger } from '../triggers';

export type { Trigger };

/** State machine input, set by whoever starts a run. */
export interface ExecutionRequest {
  executionId: string;
  workflowId: string;
  workspaceId: string;
  userId: string;
  /** Version of the immutable deployment to run. */
  deploymentVersion: number;
  trigger: Trigger;
  /** Input already validated against the Start block; `{}` when it travels by `inputRef`. */
  input: Record<string, unknown>;
  /** Where a large input was put before the run started (core/runs/by-reference.ts). */
  inputRef?: string;
  startedAt: string;
  mode: 'sync' | 'async';
  /** Whose usage the run's cost is added to (core/limits): `user#<id>` or `org#<id>`; absent: the user's. */
  usageOwner?: string;
  /** USD of the run's cost counted when it was admitted (its base charge); Finalize adds the rest. */
  chargedUsd?: number;
  /** The acting user's permission group restrictions, looked up once when the run was prepared. */
  policy?: AccessPolicy;
}

/** What the Step task returns; the state machine routes on `status`. */
export type StepOutcome =
  | { status: 'running' }
  | { status: 'waiting'; waitSeconds: number }
  | { status: 'done'; result: RunResult | { resultRef: string } };

/** The state as Step and Finalize see it: the request plus what earlier states added. */
export interface ExecutionState extends ExecutionRequest {
  step?: StepOutcome;
  /** Set by the Catch of the Step state. */
  failure?: { Error?: string; Cause?: string };
}

/** What Finalize returns, and so what a sync execution answers with. */
export interface ExecutionAnswer {
  httpStatus: number;
  headers: Record<string, string>;
  body: {
    success: boolean;
    output?: unknown;
    error?: string;
    /**
     * `EXECUTION_ERROR` on a failed run, so clients can tell a failed run from a crash; `TIMEOUT`
     * on a sync run that could not finish within the sync budget (HTTP 408); `VALIDATION_ERROR`
     * (HTTP 400) when the caller's data made the run's answer unsendable (a header with a line break).
     */
    code?: 'EXECUTION_ERROR' | 'TIMEOUT' | 'VALIDATION_ERROR';
    metadata: {
      duration: number;
      executionId: string;
      startedAt: string;
      endedAt: string;
      cost: CostSummary;
    };
    traceSpans: unknown[];
    /** One entry per executed block (./block-logs.ts). */
    logs: BlockLog[];
    totalDuration: number;
  };
}

/** Port: starts runs on the execution state machine (Step Functions in AWS, in-process locally). */
export interface ExecutionStarter {
  startSync(request: ExecutionRequest): Promise<ExecutionAnswer>;
  /** Starts the run on the Standard machine, named by its execution id; starting one that exists is a no-op. */
  startAsync(request: ExecutionRequest): Promise<void>;
  /** Stops an asynchronous run; stopping one that is not running (or never started) is a no-op. */
  stopAsync(executionId: string, reason: string): Promise<void>;
}
