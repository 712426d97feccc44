/**
 * The step runner behind `runStep` (run.ts): it decides what runs next. State lives in the frames of
 * the checkpoint (checkpoint.ts); the runtime kept beside them is in runtime.ts.
 *
 * Work flows through one queue. A block is queued once all of its incoming edges have settled and
 * one was taken (edges.ts); every queued block starts at once (so ready blocks run concurrently,
 * across frames too), until the step's budget is used. Each kind of work has a module of its own:
 * plain blocks (plain-blocks.ts), loops and parallels (loops-and-parallels.ts), child
 * workflows (child-workflows.ts); how blocks end is in block-ends.ts, how frames end in
 * frame-ends.ts, and what the step returns in step-result.ts.
 */
import type { Checkpoint, StepOptions, StepResult } from '../checkpoint';
import { inProcessWaitLimitInMs, limitsOf } from '../limits';
import type { GraphIndex } from '../scopes';
import { startChild } from './child-workflows';
import { completeFrame } from './frame-ends';
import { hydrate } from './frames';
import { advanceContainer, openContainer, startCondition } from './loops-and-parallels';
import { startBlock, startResume } from './plain-blocks';
import type { Frame, Step, WorkItem } from './runtime';
import { stepResult } from './step-result';
import type { EngineDeps, EngineLimits } from '../types';

function isContainerType(type: string): type is 'loop' | 'parallel' {
  return type === 'loop' || type === 'parallel';
}

export class StepRunner implements Step {
  readonly state: Checkpoint;
  readonly deps: EngineDeps;
  readonly environment: Record<string, string>;
  readonly limits: EngineLimits;
  readonly indexes = new Map<string, GraphIndex>();
  readonly frames = new Map<string, Frame>();
  queue: WorkItem[] = [];
  head = 0;
  completing: Frame[] = [];
  inFlight = 0;
  fatal?: unknown;
  private readonly budgetInMs: number;
  private readonly stepStartedAt: number;
  private pumping = false;
  private onIdle?: () => void;

  constructor(state: Checkpoint, deps: EngineDeps, options: StepOptions) {
    this.state = state;
    this.deps = deps;
    this.environment = options.environment;
    this.budgetInMs = options.budgetInMs;
    this.limits = limitsOf(deps.limits);
    this.stepStartedAt = deps.now();
  }

  async run(): Promise<StepResult> {
    for (const frame of Object.values(this.state.frames)) hydrate(this, frame);
    for (const frame of [...this.frames.values()]) {
      for (const id of [...frame.running]) {
        if (!frame.closed && frame.state.blocks[id].container) advanceContainer(this, frame, id);
      }
    }
    this.resumeDueWaits();
    await new Promise<void>((resolve) => {
      this.onIdle = resolve;
      this.pump();
    });
    if (this.fatal !== undefined) throw this.fatal;
    return stepResult(this);
  }

  private budgetUsed(): boolean {
    return this.deps.now() - this.stepStartedAt >= this.budgetInMs;
  }

  pump(): void {
    if (this.pumping || this.fatal !== undefined) return;
    this.pumping = true;
    try {
      for (;;) {
        if (this.completing.length > 0) {
          const frame = this.completing.shift()!;
          if (!frame.closed) completeFrame(this, frame);
          continue;
        }
        if (this.state.end) break;
        if (this.head < this.queue.length && !this.budgetUsed()) {
          const item = this.queue[this.head++];
          if (!item.frame.closed) this.start(item);
          continue;
        }
        if (this.inFlight === 0 && this.head >= this.queue.length && this.resumeDueWaits()) continue;
        break;
      }
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue = this.queue.slice(this.head);
        this.head = 0;
      }
    } catch (error) {
      this.fatal = error;
    } finally {
      this.pumping = false;
    }
    // After the end, blocks still in flight were cancelled: their results no longer matter.
    if (this.inFlight === 0 || this.fatal !== undefined || this.state.end) this.onIdle?.();
  }

  /** Queues the suspended waits that are over or nearly so (see limits.ts); false when there is none. */
  private resumeDueWaits(): boolean {
    if (this.budgetUsed()) return false;
    const now = this.deps.now();
    let resumed = false;
    for (const frame of this.frames.values()) {
      if (frame.closed) continue;
      for (const id of [...frame.waiting]) {
        if (frame.state.blocks[id].waitUntil! - now > inProcessWaitLimitInMs) continue;
        if (frame.resuming.has(id)) continue;
        frame.resuming.add(id);
        this.queue.push({ kind: 'resume', frame, block: id });
        resumed = true;
      }
    }
    return resumed;
  }

  private start(item: WorkItem): void {
    const { frame, block: id } = item;
    const { status } = frame.state.blocks[id];
    if (item.kind === 'condition') {
      if (status === 'running') startCondition(this, frame, id);
    } else if (item.kind === 'resume') {
      if (status === 'waiting') startResume(this, frame, id);
    } else if (status === 'pending') {
      const { type } = frame.index.graph.blocks[id];
      if (isContainerType(type)) openContainer(this, frame, id, type);
      else if (type === 'workflow') startChild(this, frame, id);
      else startBlock(this, frame, id);
    }
  }
}
