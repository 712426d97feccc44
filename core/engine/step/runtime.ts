/**
 * What a step keeps in memory beside the checkpoint. What the step derives from the frames (pending
 * incoming edges per block, outputs by name, abort controllers) is rebuilt when the step starts and
 * then kept up to date incrementally, so the work per block does not grow with the size of the graph
 * or the number of iterations. The modules of this folder share it through `Step`.
 */
import type { Checkpoint, FrameState } from '../checkpoint';
import type { IterationScope, ReferenceScope } from '../references';
import type { GraphIndex, ScopeIndex } from '../scopes';
import type { EngineDeps, EngineLimits, RunContext } from '../types';

/** Runtime companion of an open frame. */
export interface Frame {
  state: FrameState;
  index: GraphIndex;
  scope: ScopeIndex;
  parent?: Frame;
  /** The nearest workflow frame: this one for a root or child workflow. */
  workflow: Frame;
  context: RunContext;
  /** Outputs by block name; looks further in the parent frame's (not across a child workflow's edge). */
  outputs: Record<string, unknown>;
  loop?: IterationScope;
  parallel?: IterationScope;
  references: ReferenceScope;
  /** The same with `{{NAME}}` left as written, for spans. */
  shown: ReferenceScope;
  pendingIncoming: Map<string, number>;
  reached: Set<string>;
  /** Blocks not yet done, failed, skipped or cancelled. */
  remaining: number;
  /** Made when a block first asks for the frame's signal (see `signalOf`). */
  controller?: AbortController;
  /** Why the frame was cancelled, for a signal asked for after it was. */
  cancelledBecause?: string;
  children: Set<Frame>;
  inFlight: Set<WorkInFlight>;
  /** Containers and workflow blocks that have started and not finished. */
  running: Set<string>;
  waiting: Set<string>;
  /** Loops whose condition is queued or being evaluated. */
  conditions: Set<string>;
  /** Suspended waits queued to resume. */
  resuming: Set<string>;
  closed: boolean;
  completing: boolean;
}

/** Work in flight: a block, a child workflow being loaded, a loop's condition, a resumed wait. */
export interface WorkInFlight {
  frame: Frame;
  block: string;
  kind: 'block' | 'child' | 'condition' | 'resume';
  startedAt: number;
  shownInputs?: Record<string, unknown>;
  settled: boolean;
}

/** An entry of the work queue. */
export interface WorkItem {
  kind: 'block' | 'condition' | 'resume';
  frame: Frame;
  block: string;
}

/** One step of a run: the checkpoint it advances and the runtime it keeps beside it. */
export interface Step {
  readonly state: Checkpoint;
  readonly deps: EngineDeps;
  /** Workspace environment variables, decrypted; never stored in the checkpoint. */
  readonly environment: Record<string, string>;
  readonly limits: EngineLimits;
  /** Indexes of the graphs by their key in the checkpoint. */
  readonly indexes: Map<string, GraphIndex>;
  readonly frames: Map<string, Frame>;
  /** The work queue, read from `head` on. */
  queue: WorkItem[];
  head: number;
  /** Frames with nothing left to do, completed from the pump. */
  completing: Frame[];
  inFlight: number;
  /** An error that stops the step (a defect, not a block's failure). */
  fatal?: unknown;
  /** Starts what can start now; called whenever work settles. */
  pump(): void;
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
