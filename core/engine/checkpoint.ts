/**
 * The checkpoint: everything a run needs to go on in another process, as plain JSON. State lives in
 * frames: the top level of the workflow is the root frame; each loop iteration, parallel branch and
 * child workflow opens a frame of its own, holding the states of the blocks and edges of that scope
 * (scopes.ts).
 */
import type { ResponseData } from './blocks/types';
import type { ContainerPlan } from './containers';
import { type GraphIndex, type ScopeIndex, topLevel } from './scopes';
import type { CostSummary, RunContext, RunResult, TraceSpan, WorkflowGraph } from './types';

export type BlockStatus = 'pending' | 'running' | 'waiting' | 'done' | 'failed' | 'skipped' | 'cancelled';
export type EdgeStatus = 'pending' | 'taken' | 'pruned';

/** A loop or parallel block that has started. */
export interface ContainerState extends ContainerPlan {
  /** Index of the next iteration or branch to start. */
  next: number;
  /** Frame ids of the iterations or branches running now (a loop has at most one). */
  active: string[];
  /** Result of each finished iteration or branch, by index. */
  results: unknown[];
  /** Span of each finished iteration or branch, by index. */
  iterations: TraceSpan[];
  /** Loops: outputs of the last finished iteration by block name, which the next condition can read. */
  lastOutputs?: Record<string, unknown>;
}

export interface BlockState {
  status: BlockStatus;
  output?: unknown;
  /** Message of a failure; with an error edge the block still counts as done. */
  error?: string;
  /** Position in execution order. */
  sequence?: number;
  /** Blocks that last across steps (containers, child workflows, long waits): when they started... */
  startedAt?: number;
  /** ...and the resolved config their span shows. */
  input?: Record<string, unknown>;
  container?: ContainerState;
  /** A `workflow` block: the frame of its child run. */
  child?: string;
  /** A suspended wait: when it is over (milliseconds since the epoch). */
  waitUntil?: number;
}

/** What a workflow frame (the root or a child workflow) has beyond a plain frame. */
export interface WorkflowFrameState {
  /** 0 for the run itself, 1 for its child workflows, and so on. */
  depth: number;
  /** `<variable.name>` of this workflow. */
  variables: Record<string, unknown>;
  /** A child workflow: which one, and its checked input. The root takes both from the context. */
  workflowId?: string;
  input?: Record<string, unknown>;
  /** A child workflow that ended at a response block. */
  response?: ResponseData;
}

export interface FrameState {
  id: string;
  /** `main` for the run's own graph, else the key of a child workflow's graph in `Checkpoint.graphs`. */
  graph: string;
  /** The container whose body this frame runs; null for the top level of a workflow. */
  container: string | null;
  /** The block in the parent frame that opened this frame (a container, or a workflow block). */
  owner?: { frame: string; block: string };
  /** Iterations and branches: which one. */
  iteration?: { kind: 'loop' | 'parallel'; index: number };
  workflow?: WorkflowFrameState;
  /** The states of the blocks of the scope. */
  blocks: Record<string, BlockState>;
  /** Status of each edge of the scope, in the order of `ScopeIndex.sources`. */
  edges: EdgeStatus[];
  /** Spans of the blocks that finished in this frame, in the order they finished. */
  spans: TraceSpan[];
  startedAt: number;
}

export interface RunEnd {
  /** Milliseconds since the epoch. */
  at: number;
  /** The run's error, naming the block that failed it. */
  error?: string;
  /** The status of a failed run whose caller is at fault (400); absent: 500. */
  httpStatus?: number;
  response?: ResponseData;
}

/** The run's context as checkpoints keep it: without the environment, which is passed to each step. */
export type CheckpointContext = Omit<RunContext, 'environment'>;

/** Everything a run needs to go on in another process. Plain JSON; holds no environment value. */
export interface Checkpoint {
  version: 2;
  /** The context the run started from, its graph normalized. */
  context: CheckpointContext;
  /** Graphs of the child workflows running now, by the id of their frame. */
  graphs: Record<string, WorkflowGraph>;
  /** Open frames, parents before their children; the root frame is `root`. */
  frames: Record<string, FrameState>;
  cost: CostSummary;
  /** How many spans have been recorded; numbers spans and blocks. */
  executed: number;
  end?: RunEnd;
}

export interface StepOptions {
  /** Time this step may spend; no new block starts after it. Zero or less runs nothing. */
  budgetInMs: number;
  /** Workspace environment variables for `{{NAME}}`, already decrypted. Never stored in the checkpoint. */
  environment: Record<string, string>;
}

export type StepResult =
  | { status: 'running'; checkpoint: Checkpoint }
  | { status: 'waiting'; checkpoint: Checkpoint; waitSeconds: number }
  | { status: 'done'; result: RunResult };

export const rootFrameId = 'root';
export const mainGraph = 'main';

/** The frame of a workflow's top level, all blocks pending. */
export function workflowFrame(
  id: string,
  graphKey: string,
  index: GraphIndex,
  workflow: WorkflowFrameState,
  startedAt: number,
  owner?: FrameState['owner'],
): FrameState {
  const scope = index.scopes.get(topLevel)!;
  return {
    id,
    graph: graphKey,
    container: null,
    ...(owner ? { owner } : {}),
    workflow,
    blocks: pendingBlocks(scope),
    edges: scope.sources.map(() => 'pending'),
    spans: [],
    startedAt,
  };
}

export function pendingBlocks(scope: ScopeIndex): Record<string, BlockState> {
  const blocks: Record<string, BlockState> = {};
  for (const id of scope.blocks) blocks[id] = { status: 'pending' };
  return blocks;
}
