/**
 * The scheduler behind `runStep` (run.ts). State lives in frames: the top level of the workflow is
 * the root frame; each loop iteration, parallel branch and child workflow opens a frame of its own,
 * holding the states of the blocks and edges of that scope (scopes.ts). Frames are plain JSON in
 * the checkpoint; what the scheduler derives from them (pending incoming edges per block, outputs
 * by name, abort controllers) is rebuilt when a step starts and then kept up to date incrementally,
 * so the work per block does not grow with the size of the graph or the number of iterations.
 *
 * Work flows through one queue. A block is queued once all of its incoming edges have settled and
 * one was taken; every queued block starts at once (so ready blocks run concurrently, across frames
 * too), until the step's budget is used. A block whose incoming edges were all pruned, or that is
 * disabled, is skipped and prunes its own outgoing edges. When a frame has no block left to run it
 * completes: a branch or iteration hands its result to its container, a child workflow to its
 * `workflow` block, the root frame ends the run. A block failing without an error edge fails its
 * frame: the rest of the frame and its sibling iterations are cancelled (their in-flight blocks see
 * their abort signal fire and their spans say `Cancelled: ...`), and the failure moves up to the
 * container, which may have an error edge of its own.
 */
import { blockViolations, graphViolations, refusalOf } from '../permissions/check';
import { evaluateExpression } from './blocks/condition';
import { blockDefinition } from './blocks/registry';
import type { BlockDefinition, BlockOutcome, BlockRun, ConfigResolver, ResponseData } from './blocks/types';
import { sleepOf } from './blocks/wait';
import { type ChildWorkflow, loadChildWorkflow, resolveWorkflowInputs } from './blocks/workflow';
import { type ContainerPlan, planContainer, resolveContainerInputs } from './containers';
import { addModelUsage, modelCostOf } from './cost';
import { formatBytes, jsonSizeInBytes } from './json-size';
import { inProcessWaitLimitInMs, limitsOf } from './limits';
import { responseHeadersFrom } from './response-headers';
import {
  type IterationScope,
  type ReferenceScope,
  interpolateCode,
  interpolateText,
  resolveValue,
} from './references';
import { type GraphIndex, indexGraph, type ScopeIndex, topLevel } from './scopes';
import { omittedNote, spanInput, spanValue } from './span-values';
import type {
  CostSummary,
  EngineDeps,
  EngineLimits,
  RunContext,
  RunResult,
  TraceSpan,
  WorkflowGraph,
} from './types';

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

function pendingBlocks(scope: ScopeIndex): Record<string, BlockState> {
  const blocks: Record<string, BlockState> = {};
  for (const id of scope.blocks) blocks[id] = { status: 'pending' };
  return blocks;
}

/** Runtime companion of an open frame. */
interface Frame {
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
  tasks: Set<Task>;
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

interface Task {
  frame: Frame;
  block: string;
  kind: 'block' | 'child' | 'condition' | 'resume';
  startedAt: number;
  shownInputs?: Record<string, unknown>;
  settled: boolean;
}

interface WorkItem {
  kind: 'block' | 'condition' | 'resume';
  frame: Frame;
  block: string;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

let lastIsoTime = { milliseconds: Number.NaN, text: '' };

/** Consecutive spans mostly start and end within the same millisecond; formatting dates is not free. */
function isoTime(milliseconds: number): string {
  if (milliseconds !== lastIsoTime.milliseconds) {
    lastIsoTime = { milliseconds, text: new Date(milliseconds).toISOString() };
  }
  return lastIsoTime.text;
}

function resolverOf(scope: ReferenceScope): ConfigResolver {
  return {
    value: (value) => resolveValue(value, scope),
    text: (text) => interpolateText(text, scope),
    code: (code) => interpolateCode(code, scope),
  };
}

function resolveInputs(
  definition: BlockDefinition,
  run: BlockRun,
  scope: ReferenceScope,
): Record<string, unknown> {
  const resolve = resolverOf(scope);
  if (definition.resolveInputs) return definition.resolveInputs(run.block, resolve, run);
  return resolve.value(run.block.config) as Record<string, unknown>;
}

function isContainerType(type: string): type is 'loop' | 'parallel' {
  return type === 'loop' || type === 'parallel';
}

export class Scheduler {
  private readonly state: Checkpoint;
  private readonly deps: EngineDeps;
  private readonly environment: Record<string, string>;
  private readonly budgetInMs: number;
  private readonly limits: EngineLimits;
  private readonly stepStartedAt: number;
  private readonly indexes = new Map<string, GraphIndex>();
  private readonly frames = new Map<string, Frame>();
  private queue: WorkItem[] = [];
  private head = 0;
  private completing: Frame[] = [];
  private inFlight = 0;
  private pumping = false;
  private onIdle?: () => void;
  private fatal?: unknown;

  constructor(state: Checkpoint, deps: EngineDeps, options: StepOptions) {
    this.state = state;
    this.deps = deps;
    this.environment = options.environment;
    this.budgetInMs = options.budgetInMs;
    this.limits = limitsOf(deps.limits);
    this.stepStartedAt = deps.now();
  }

  async run(): Promise<StepResult> {
    for (const frame of Object.values(this.state.frames)) this.hydrate(frame);
    for (const frame of [...this.frames.values()]) {
      for (const id of [...frame.running]) {
        if (!frame.closed && frame.state.blocks[id].container) this.advanceContainer(frame, id);
      }
    }
    this.resumeDueWaits();
    await new Promise<void>((resolve) => {
      this.onIdle = resolve;
      this.pump();
    });
    if (this.fatal !== undefined) throw this.fatal;
    return this.result();
  }

  // ------------------------------------------------------------------------------------------
  // Frames

  private indexOf(key: string): GraphIndex {
    let index = this.indexes.get(key);
    if (!index) {
      const graph = key === mainGraph ? this.state.context.graph : this.state.graphs[key];
      if (!graph) throw new Error(`Checkpoint has no graph "${key}"`);
      index = indexGraph(graph);
      this.indexes.set(key, index);
    }
    return index;
  }

  private makeScope(
    frame: Frame,
    outputs: Record<string, unknown>,
    loop: IterationScope | undefined,
    parallel: IterationScope | undefined,
    redactEnvironment: boolean,
  ): ReferenceScope {
    const { workflow } = frame;
    const startId = frame.index.startId;
    return {
      blockNames: frame.index.blockNames,
      outputs,
      get start() {
        return startId === undefined ? undefined : workflow.state.blocks[startId]?.output;
      },
      variables: workflow.state.workflow!.variables,
      environment: this.environment,
      loop,
      parallel,
      redactEnvironment,
    };
  }

  /** Builds the runtime of a frame from its state, and queues or skips the blocks that can be settled now. */
  private hydrate(state: FrameState): Frame {
    const parent = state.owner ? this.frames.get(state.owner.frame) : undefined;
    if (state.owner && !parent) throw new Error(`Checkpoint frame ${state.id} has no parent frame`);
    const index = this.indexOf(state.graph);
    const scope = index.scopes.get(state.container ?? topLevel);
    if (!scope) throw new Error(`Checkpoint frame ${state.id} names no scope of its graph`);
    const frame = {
      state,
      index,
      scope,
      parent,
      outputs: Object.create(state.workflow || !parent ? null : parent.outputs),
      pendingIncoming: new Map(),
      reached: new Set(scope.entries),
      remaining: 0,
      children: new Set(),
      tasks: new Set(),
      running: new Set(),
      waiting: new Set(),
      conditions: new Set(),
      resuming: new Set(),
      closed: false,
      completing: false,
    } as unknown as Frame;
    if (state.workflow || !parent) {
      frame.workflow = frame;
      frame.context = this.contextOf(state, index);
    } else {
      frame.workflow = parent.workflow;
      frame.context = parent.context;
      frame.loop = parent.loop;
      frame.parallel = parent.parallel;
      if (state.iteration) {
        const container = parent.state.blocks[state.owner!.block].container!;
        const { index: position } = state.iteration;
        const iteration: IterationScope = {
          index: position,
          currentItem: container.items?.[position],
          items: container.collection,
        };
        if (state.iteration.kind === 'loop') frame.loop = iteration;
        else frame.parallel = iteration;
      }
    }
    frame.references = this.makeScope(frame, frame.outputs, frame.loop, frame.parallel, false);
    frame.shown = this.makeScope(frame, frame.outputs, frame.loop, frame.parallel, true);
    parent?.children.add(frame);
    this.frames.set(state.id, frame);

    for (const id of scope.blocks) frame.pendingIncoming.set(id, 0);
    state.edges.forEach((status, position) => {
      const target = scope.targets[position];
      if (status === 'pending') frame.pendingIncoming.set(target, frame.pendingIncoming.get(target)! + 1);
      else if (status === 'taken') frame.reached.add(target);
    });
    const settle: string[] = [];
    for (const id of scope.blocks) {
      const block = state.blocks[id];
      if (block.status === 'done') frame.outputs[index.names.get(id)!] = block.output;
      else if (block.status === 'pending') {
        frame.remaining += 1;
        if (frame.pendingIncoming.get(id) === 0) settle.push(id);
      } else if (block.status === 'running') {
        frame.remaining += 1;
        frame.running.add(id);
      } else if (block.status === 'waiting') {
        frame.remaining += 1;
        frame.waiting.add(id);
      }
    }
    this.drain(frame, settle);
    this.check(frame);
    return frame;
  }

  private contextOf(state: FrameState, index: GraphIndex): RunContext {
    const context = this.state.context;
    const workflow = state.workflow;
    if (!workflow?.workflowId) return { ...context, environment: this.environment };
    return {
      ...context,
      workflowId: workflow.workflowId,
      graph: index.graph,
      input: workflow.input ?? {},
      environment: this.environment,
    };
  }

  /** Frames with nothing left to do are completed from the pump, so long chains of them never recurse. */
  private check(frame: Frame): void {
    if (frame.remaining === 0 && !frame.closed && !frame.completing) {
      frame.completing = true;
      this.completing.push(frame);
    }
  }

  private removeFrame(frame: Frame): void {
    frame.closed = true;
    delete this.state.frames[frame.state.id];
    if (frame.state.workflow) delete this.state.graphs[frame.state.graph];
    this.frames.delete(frame.state.id);
    frame.parent?.children.delete(frame);
  }

  // ------------------------------------------------------------------------------------------
  // Edges

  /** Settles the pending outgoing edges of a block and everything that follows from that. */
  private settleOutgoing(frame: Frame, id: string, follow: (handle: string) => boolean): void {
    const ready: string[] = [];
    this.settleEdges(frame, id, follow, ready);
    this.drain(frame, ready);
  }

  private settleEdges(
    frame: Frame,
    id: string,
    follow: (handle: string) => boolean,
    settled: string[],
  ): void {
    const { scope, state } = frame;
    for (const position of scope.outgoing.get(id)!) {
      if (state.edges[position] !== 'pending') continue;
      const taken = follow(scope.handles[position]);
      state.edges[position] = taken ? 'taken' : 'pruned';
      const target = scope.targets[position];
      if (taken) frame.reached.add(target);
      const pending = frame.pendingIncoming.get(target)! - 1;
      frame.pendingIncoming.set(target, pending);
      if (pending === 0) settled.push(target);
    }
  }

  /** Queues each settled block that was reached and is enabled; skips the others, pruning onwards. */
  private drain(frame: Frame, settled: string[]): void {
    for (let next = 0; next < settled.length; next++) {
      const id = settled[next];
      const block = frame.state.blocks[id];
      if (block.status !== 'pending') continue;
      if (frame.reached.has(id) && frame.index.graph.blocks[id].enabled !== false) {
        this.queue.push({ kind: 'block', frame, block: id });
        continue;
      }
      block.status = 'skipped';
      frame.remaining -= 1;
      this.settleEdges(frame, id, () => false, settled);
    }
  }

  // ------------------------------------------------------------------------------------------
  // The pump

  private budgetUsed(): boolean {
    return this.deps.now() - this.stepStartedAt >= this.budgetInMs;
  }

  private pump(): void {
    if (this.pumping || this.fatal !== undefined) return;
    this.pumping = true;
    try {
      for (;;) {
        if (this.completing.length > 0) {
          const frame = this.completing.shift()!;
          if (!frame.closed) this.completeFrame(frame);
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
      if (status === 'running') this.startCondition(frame, id);
    } else if (item.kind === 'resume') {
      if (status === 'waiting') this.startResume(frame, id);
    } else if (status === 'pending') {
      const { type } = frame.index.graph.blocks[id];
      if (isContainerType(type)) this.openContainer(frame, id, type);
      else if (type === 'workflow') this.startChild(frame, id);
      else this.startBlock(frame, id);
    }
  }

  private track(frame: Frame, id: string, kind: Task['kind']): Task {
    const task: Task = { frame, block: id, kind, startedAt: this.deps.now(), settled: false };
    frame.tasks.add(task);
    this.inFlight += 1;
    return task;
  }

  /** False when the task was cancelled meanwhile: its result is then dropped. */
  private release(task: Task): boolean {
    if (task.settled) return false;
    task.settled = true;
    task.frame.tasks.delete(task);
    this.inFlight -= 1;
    return true;
  }

  /** Applies the task's result once it settles, unless it was cancelled meanwhile; then pumps on. */
  private whenSettled<T>(
    task: Task,
    work: Promise<T>,
    onValue: (task: Task, value: T) => void,
    onError: (task: Task, message: string) => void,
  ): void {
    work.then(
      (value) => this.settle(task, onValue, value),
      (error: unknown) => this.settle(task, onError, messageOf(error)),
    );
  }

  private settle<T>(task: Task, apply: (task: Task, value: T) => void, value: T): void {
    if (this.release(task)) {
      try {
        apply(task, value);
      } catch (error) {
        this.fatal = error;
      }
    }
    this.pump();
  }

  private blockRun(frame: Frame, id: string): BlockRun {
    return {
      block: frame.index.graph.blocks[id],
      context: frame.context,
      deps: this.deps,
      signal: this.signalOf(frame),
    };
  }

  // ------------------------------------------------------------------------------------------
  // Plain blocks

  private startBlock(frame: Frame, id: string): void {
    const run = this.blockRun(frame, id);
    const definition = blockDefinition(run.block.type);
    const startedAt = this.deps.now();
    const task = this.track(frame, id, 'block');
    let work: Promise<BlockOutcome>;
    try {
      const inputs = resolveInputs(definition, run, frame.references);
      // A provider given by reference is known only now; the rest was checked when the run began.
      const { policy } = this.state.context;
      const refused = policy && refusalOf(blockViolations(run.block, inputs, policy));
      if (refused) {
        this.release(task);
        this.refuse(frame, id, refused, startedAt, this.shownInputs(definition, run, frame));
        return;
      }
      // A header value the run's own answer cannot carry (a reference brought a line break) is
      // the caller's data at fault: the run ends with a 400 naming the header, not a 500.
      const badHeaders = run.block.type === 'response' && !frame.workflow.parent && headersProblemOf(inputs);
      if (badHeaders) {
        this.release(task);
        this.refuse(frame, id, badHeaders, startedAt, this.shownInputs(definition, run, frame), 400);
        return;
      }
      // Without `{{NAME}}` in the config, what the span shows is what the block got.
      task.shownInputs = frame.index.usesEnvironment(id) ? this.shownInputs(definition, run, frame) : inputs;
      work = definition.execute(inputs, run);
    } catch (error) {
      task.shownInputs = this.shownInputs(definition, run, frame);
      work = Promise.reject(error);
    }
    this.whenSettled(task, work, this.blockSucceeded, this.blockFailed);
  }

  /** The resolved config with `{{NAME}}` left as written; none when it cannot be resolved. */
  private shownInputs(
    definition: BlockDefinition,
    run: BlockRun,
    frame: Frame,
  ): Record<string, unknown> | undefined {
    try {
      return resolveInputs(definition, run, frame.shown);
    } catch {
      return undefined;
    }
  }

  private readonly blockSucceeded = (task: Task, outcome: BlockOutcome): void => {
    if (outcome.suspendForMs !== undefined && outcome.suspendForMs > 0) {
      this.suspend(task.frame, task.block, task, outcome);
    } else this.succeed(task.frame, task.block, outcome, task.startedAt, task.shownInputs);
  };

  private readonly blockFailed = (task: Task, message: string): void => {
    this.fail(task.frame, task.block, message, task.startedAt, task.shownInputs);
  };

  private suspend(frame: Frame, id: string, task: Task, outcome: BlockOutcome): void {
    const block = frame.state.blocks[id];
    block.status = 'waiting';
    block.startedAt = task.startedAt;
    block.input = task.shownInputs;
    block.output = outcome.output;
    block.waitUntil = task.startedAt + outcome.suspendForMs!;
    frame.waiting.add(id);
  }

  private startResume(frame: Frame, id: string): void {
    frame.waiting.delete(id);
    frame.resuming.delete(id);
    const block = frame.state.blocks[id];
    const task = this.track(frame, id, 'resume');
    task.startedAt = block.startedAt!;
    task.shownInputs = block.input;
    const left = block.waitUntil! - this.deps.now();
    this.whenSettled(
      task,
      left > 0 ? sleepOf(this.deps)(left, this.signalOf(frame)) : Promise.resolve(),
      () => this.succeed(frame, id, { output: block.output }, task.startedAt, task.shownInputs),
      this.blockFailed,
    );
  }

  private nextSpan(
    frame: Frame,
    id: string,
    startedAt: number,
    status: TraceSpan['status'],
    input: Record<string, unknown> | undefined,
  ): TraceSpan {
    const block = frame.index.graph.blocks[id];
    const endedAt = this.deps.now();
    this.state.executed += 1;
    const span: TraceSpan = {
      id: `${this.state.context.executionId}-${this.state.executed}`,
      name: block.name,
      type: block.type,
      blockId: block.id,
      startTime: isoTime(startedAt),
      endTime: isoTime(endedAt),
      duration: endedAt - startedAt,
      status,
    };
    if (input !== undefined) span.input = spanInput(input, this.limits.maxSpanValueBytes);
    const { iteration, owner } = frame.state;
    if (iteration && owner) {
      if (iteration.kind === 'loop') span.loopId = owner.block;
      else span.parallelId = owner.block;
      span.iterationIndex = iteration.index;
    }
    return span;
  }

  /** Leaves a finished block's state with what later steps need: status, output, error, order. */
  private settleState(frame: Frame, id: string, status: BlockStatus): BlockState {
    const previous = frame.state.blocks[id];
    const block: BlockState = { status, sequence: this.state.executed };
    if (previous.output !== undefined && status === 'done') block.output = previous.output;
    frame.state.blocks[id] = block;
    frame.running.delete(id);
    frame.waiting.delete(id);
    frame.remaining -= 1;
    return block;
  }

  private succeed(
    frame: Frame,
    id: string,
    outcome: BlockOutcome,
    startedAt: number,
    input: Record<string, unknown> | undefined,
    children?: TraceSpan[],
  ): void {
    // One measurement serves both caps: the block's, and what its span may show.
    const { maxBlockOutputBytes, maxSpanValueBytes } = this.limits;
    // The Start block hands on the run's input (bounded by the request body's limit) with each
    // field twice, by name and in `input`: measured once, so any input the API takes can start.
    const made =
      frame.index.graph.blocks[id].type === 'start'
        ? (outcome.output as { input?: unknown }).input
        : outcome.output;
    const outputBytes = jsonSizeInBytes(made, maxBlockOutputBytes);
    if (outputBytes > maxBlockOutputBytes) {
      const message = `Output is larger than ${formatBytes(maxBlockOutputBytes)}, the limit of one block's output (MAX_BLOCK_OUTPUT_BYTES)`;
      this.fail(frame, id, message, startedAt, input, { children });
      return;
    }
    const span = this.nextSpan(frame, id, startedAt, 'success', input);
    span.output = outputBytes > maxSpanValueBytes ? omittedNote(maxSpanValueBytes) : outcome.output;
    if (children) span.children = children;
    const block = this.settleState(frame, id, 'done');
    block.output = outcome.output;
    frame.outputs[frame.index.names.get(id)!] = outcome.output;
    // Child workflows' blocks are not the caller's to select, so only the run's own graph reports.
    if (this.deps.onBlockOutput && frame.state.graph === mainGraph)
      this.deps.onBlockOutput(id, outcome.output);
    if (outcome.usage) {
      this.state.cost = addModelUsage(this.state.cost, outcome.usage);
      span.model = outcome.usage.model;
      span.tokens = { ...outcome.usage.tokens };
      span.cost = modelCostOf(outcome.usage);
    }
    if (outcome.variables) Object.assign(frame.workflow.state.workflow!.variables, outcome.variables);
    frame.state.spans.push(span);
    if (outcome.response) {
      this.respond(frame.workflow, outcome.response);
      return;
    }
    const selected = outcome.selectedHandles;
    this.settleOutgoing(
      frame,
      id,
      selected ? (handle) => selected.includes(handle) : (handle) => handle !== 'error',
    );
    this.check(frame);
  }

  /**
   * A block failed. With an error edge it counts as done (output `{error}`, or `errorOutput`) and
   * only error edges are followed; without one its frame fails.
   */
  private fail(
    frame: Frame,
    id: string,
    message: string,
    startedAt: number,
    input: Record<string, unknown> | undefined,
    extra: { children?: TraceSpan[]; errorOutput?: unknown } = {},
  ): void {
    const span = this.nextSpan(frame, id, startedAt, 'error', input);
    span.error = message;
    if (extra.children) span.children = extra.children;
    const { scope } = frame;
    const hasErrorEdge = scope.outgoing.get(id)!.some((position) => scope.handles[position] === 'error');
    if (hasErrorEdge) {
      const block = this.settleState(frame, id, 'done');
      block.error = message;
      block.output = extra.errorOutput ?? { error: message };
      span.output = spanValue(block.output, this.limits.maxSpanValueBytes);
      frame.outputs[frame.index.names.get(id)!] = block.output;
      frame.state.spans.push(span);
      this.settleOutgoing(frame, id, (handle) => handle === 'error');
      this.check(frame);
      return;
    }
    const block = this.settleState(frame, id, 'failed');
    block.error = message;
    frame.state.spans.push(span);
    this.failFrame(frame, `${frame.index.graph.blocks[id].name}: ${message}`);
  }

  /**
   * A block the access policy does not allow ends the whole run at once: no error edge, loop or
   * parent workflow may carry on past it, as that would let a workflow route around the policy.
   */
  private refuse(
    frame: Frame,
    id: string,
    message: string,
    startedAt: number,
    input: Record<string, unknown> | undefined,
    httpStatus?: number,
  ): void {
    const span = this.nextSpan(frame, id, startedAt, 'error', input);
    span.error = message;
    this.settleState(frame, id, 'failed').error = message;
    frame.state.spans.push(span);
    if (!this.state.end)
      this.state.end = { at: this.deps.now(), error: message, ...(httpStatus ? { httpStatus } : {}) };
    const root = this.frames.get(rootFrameId);
    if (root && !root.closed) {
      this.cancel(root, 'the run failed');
      root.closed = true;
    }
  }

  // ------------------------------------------------------------------------------------------
  // Ends of frames

  private completeFrame(frame: Frame): void {
    const { parent, state } = frame;
    if (!parent) {
      if (!this.state.end) this.state.end = { at: this.deps.now() };
      frame.closed = true;
      return;
    }
    const owner = parent.state.blocks[state.owner!.block];
    if (state.iteration) {
      const container = owner.container!;
      const result = this.resultOf(frame);
      container.results[state.iteration.index] = result;
      if (container.kind === 'loop') container.lastOutputs = { ...frame.outputs };
      this.closeIteration(frame, container, 'success', { output: result });
      this.advanceContainer(parent, state.owner!.block);
      return;
    }
    const response = state.workflow!.response;
    const result = response ? response.data : this.resultOf(frame);
    this.removeFrame(frame);
    this.succeed(
      parent,
      state.owner!.block,
      { output: { success: true, result } },
      owner.startedAt!,
      owner.input,
      state.spans,
    );
  }

  private failFrame(frame: Frame, message: string): void {
    if (frame.closed) return;
    const { parent, state } = frame;
    if (!parent) {
      if (!this.state.end) this.state.end = { at: this.deps.now(), error: message };
      this.cancel(frame, 'the run failed');
      frame.closed = true;
      return;
    }
    const ownerId = state.owner!.block;
    const owner = parent.state.blocks[ownerId];
    if (state.iteration) {
      const container = owner.container!;
      const label = `${container.kind === 'loop' ? 'Iteration' : 'Branch'} ${state.iteration.index}`;
      this.cancel(frame, `${label.toLowerCase()} failed`);
      this.closeIteration(frame, container, 'error', { error: message });
      this.cancelIterations(container, `${label.toLowerCase()} failed`);
      this.failComposite(parent, ownerId, `${label}: ${message}`);
      return;
    }
    this.cancel(frame, 'the workflow failed');
    this.removeFrame(frame);
    this.fail(parent, ownerId, message, owner.startedAt!, owner.input, {
      children: state.spans,
      errorOutput: { success: false, error: message },
    });
  }

  /** A child workflow ended at a response block: the rest of it stops, and its result is the response. */
  private respond(workflow: Frame, response: ResponseData): void {
    if (!workflow.parent) {
      if (!this.state.end) this.state.end = { at: this.deps.now(), response };
      this.cancel(workflow, 'the run ended at a response block');
      workflow.closed = true;
      return;
    }
    workflow.state.workflow!.response = response;
    this.cancel(workflow, 'the workflow ended at a response block');
    if (!workflow.completing) {
      workflow.completing = true;
      this.completing.push(workflow);
    }
  }

  /** The output of a finished frame: of its last block, or of its last blocks keyed by name. */
  private resultOf(frame: Frame): unknown {
    const { scope, state } = frame;
    const terminal = scope.blocks
      .filter((id) => state.blocks[id].status === 'done')
      .filter(
        (id) =>
          !scope.outgoing
            .get(id)!
            .some(
              (position) =>
                state.edges[position] === 'taken' && state.blocks[scope.targets[position]].status === 'done',
            ),
      )
      .sort((a, b) => (state.blocks[a].sequence ?? 0) - (state.blocks[b].sequence ?? 0));
    if (terminal.length === 0) return undefined;
    if (terminal.length === 1) return state.blocks[terminal[0]].output;
    const output: Record<string, unknown> = {};
    for (const id of terminal) output[frame.index.names.get(id)!] = state.blocks[id].output;
    return output;
  }

  /**
   * Stops everything still going on in a frame: in-flight blocks are aborted, containers and child
   * workflows cancelled with all they opened, suspended waits dropped. Each gets a span that says so.
   */
  private cancel(frame: Frame, reason: string): void {
    const error = `Cancelled: ${reason}`;
    const underWay = frame.running.size > 0 || frame.tasks.size > 0 || frame.waiting.size > 0;
    for (const id of [...frame.running]) {
      const block = frame.state.blocks[id];
      let children: TraceSpan[] | undefined;
      if (block.container) {
        this.cancelIterations(block.container, reason);
        children = block.container.iterations.filter(Boolean);
      } else if (block.child) {
        const child = this.frames.get(block.child);
        if (child) {
          this.cancel(child, reason);
          this.removeFrame(child);
          children = child.state.spans;
        }
      }
      this.cancelBlock(frame, id, block.startedAt!, block.input, error, children);
    }
    for (const task of [...frame.tasks]) {
      this.release(task);
      if (task.kind !== 'condition') {
        this.cancelBlock(frame, task.block, task.startedAt, task.shownInputs, error);
      }
    }
    for (const id of [...frame.waiting]) {
      const block = frame.state.blocks[id];
      this.cancelBlock(frame, id, block.startedAt!, block.input, error);
    }
    frame.conditions.clear();
    frame.cancelledBecause ??= error;
    // Only work under way listens to the signal. With none (a run that ended at its response
    // block), the abort (an Error with its stack, an event) waits for whoever asks for it later.
    if (underWay) frame.controller?.abort(new Error(frame.cancelledBecause));
    else frame.controller = undefined;
  }

  /** The signal the frame's blocks get: aborted, with the reason, once the frame is cancelled. */
  private signalOf(frame: Frame): AbortSignal {
    if (!frame.controller) {
      frame.controller = new AbortController();
      if (frame.cancelledBecause) frame.controller.abort(new Error(frame.cancelledBecause));
    }
    return frame.controller.signal;
  }

  private cancelBlock(
    frame: Frame,
    id: string,
    startedAt: number,
    input: Record<string, unknown> | undefined,
    error: string,
    children?: TraceSpan[],
  ): void {
    if (frame.state.blocks[id].status === 'cancelled') return;
    const span = this.nextSpan(frame, id, startedAt, 'error', input);
    span.error = error;
    if (children) span.children = children;
    this.settleState(frame, id, 'cancelled');
    frame.state.spans.push(span);
  }

  // ------------------------------------------------------------------------------------------
  // Loops and parallels

  private openContainer(frame: Frame, id: string, type: 'loop' | 'parallel'): void {
    const block = frame.index.graph.blocks[id];
    const startedAt = this.deps.now();
    let input: Record<string, unknown> | undefined;
    try {
      input = resolveContainerInputs(block, resolverOf(frame.shown));
    } catch {
      // Reported by the resolution below.
    }
    let plan: ContainerPlan;
    try {
      plan = planContainer(type, resolveContainerInputs(block, resolverOf(frame.references)), this.limits);
    } catch (error) {
      this.fail(frame, id, messageOf(error), startedAt, input);
      return;
    }
    const state = frame.state.blocks[id];
    state.status = 'running';
    state.startedAt = startedAt;
    state.input = input;
    state.container = { ...plan, next: 0, active: [], results: [], iterations: [] };
    frame.running.add(id);
    this.advanceContainer(frame, id);
  }

  /** Starts what the container runs next, or finishes it. */
  private advanceContainer(frame: Frame, id: string): void {
    const container = frame.state.blocks[id].container!;
    const total = container.total ?? Number.POSITIVE_INFINITY;
    if (container.kind === 'parallel') {
      while (container.active.length < this.limits.parallelConcurrency && container.next < total) {
        this.startIteration(frame, id, container);
      }
      if (container.active.length === 0) this.finishContainer(frame, id);
      return;
    }
    if (container.active.length > 0 || frame.conditions.has(id)) return;
    if (container.mode === 'while' || (container.mode === 'doWhile' && container.next > 0)) {
      frame.conditions.add(id);
      this.queue.push({ kind: 'condition', frame, block: id });
    } else if (container.next < total) this.startIteration(frame, id, container);
    else this.finishContainer(frame, id);
  }

  private startIteration(frame: Frame, id: string, container: ContainerState): void {
    const index = container.next;
    container.next += 1;
    const scope = frame.index.scopes.get(id)!;
    const state: FrameState = {
      id: `${frame.state.id}/${id}/${index}`,
      graph: frame.state.graph,
      container: id,
      owner: { frame: frame.state.id, block: id },
      iteration: { kind: container.kind, index },
      blocks: pendingBlocks(scope),
      edges: scope.sources.map(() => 'pending'),
      spans: [],
      startedAt: this.deps.now(),
    };
    this.state.frames[state.id] = state;
    container.active.push(state.id);
    this.hydrate(state);
  }

  private closeIteration(
    frame: Frame,
    container: ContainerState,
    status: TraceSpan['status'],
    end: { output?: unknown; error?: string },
  ): void {
    const { state } = frame;
    const { index } = state.iteration!;
    const containerId = state.owner!.block;
    const endedAt = this.deps.now();
    this.state.executed += 1;
    const span: TraceSpan = {
      id: `${this.state.context.executionId}-${this.state.executed}`,
      name: `${container.kind === 'loop' ? 'Iteration' : 'Branch'} ${index}`,
      type: container.kind === 'loop' ? 'loop-iteration' : 'parallel-branch',
      blockId: containerId,
      startTime: isoTime(state.startedAt),
      endTime: isoTime(endedAt),
      duration: endedAt - state.startedAt,
      status,
      ...(end.error === undefined ? {} : { error: end.error }),
      ...(end.output === undefined ? {} : { output: spanValue(end.output, this.limits.maxSpanValueBytes) }),
      children: state.spans,
      ...(container.kind === 'loop' ? { loopId: containerId } : { parallelId: containerId }),
      iterationIndex: index,
    };
    container.iterations[index] = span;
    container.active = container.active.filter((active) => active !== state.id);
    this.removeFrame(frame);
  }

  private cancelIterations(container: ContainerState, reason: string): void {
    for (const id of [...container.active]) {
      const iteration = this.frames.get(id);
      if (!iteration) continue;
      this.cancel(iteration, reason);
      this.closeIteration(iteration, container, 'error', { error: `Cancelled: ${reason}` });
    }
  }

  private finishContainer(frame: Frame, id: string): void {
    const block = frame.state.blocks[id];
    const container = block.container!;
    const results = Array.from({ length: container.next }, (_, index) => container.results[index]);
    this.succeed(
      frame,
      id,
      { output: { results } },
      block.startedAt!,
      block.input,
      container.iterations.filter(Boolean),
    );
  }

  private failComposite(frame: Frame, id: string, message: string): void {
    const block = frame.state.blocks[id];
    const children = block.container?.iterations.filter(Boolean);
    frame.conditions.delete(id);
    this.fail(frame, id, message, block.startedAt!, block.input, { children });
  }

  /** `while` before each iteration, `doWhile` after: `<loop.index>` is the iteration it decides on. */
  private startCondition(frame: Frame, id: string): void {
    const container = frame.state.blocks[id].container!;
    const task = this.track(frame, id, 'condition');
    const outputs = Object.create(frame.outputs) as Record<string, unknown>;
    Object.assign(outputs, container.lastOutputs);
    const loop: IterationScope = {
      index: container.next,
      currentItem: undefined,
      items: container.collection,
    };
    const scope = this.makeScope(frame, outputs, loop, frame.parallel, false);
    this.whenSettled(
      task,
      (async () =>
        evaluateExpression(
          interpolateCode(container.condition!, scope),
          this.deps,
          this.signalOf(frame),
          this.state.context.workspaceId,
        ))(),
      (_task, holds) => {
        frame.conditions.delete(id);
        if (!holds) this.finishContainer(frame, id);
        else if (container.next >= this.limits.maxLoopIterations) {
          this.failComposite(
            frame,
            id,
            `Loop reached the limit of ${this.limits.maxLoopIterations} iterations and its condition still holds`,
          );
        } else this.startIteration(frame, id, container);
      },
      (_task, message) => {
        frame.conditions.delete(id);
        this.failComposite(frame, id, `Loop condition failed: ${message}`);
      },
    );
  }

  // ------------------------------------------------------------------------------------------
  // Child workflows

  private startChild(frame: Frame, id: string): void {
    const run = this.blockRun(frame, id);
    const task = this.track(frame, id, 'child');
    try {
      task.shownInputs = resolveWorkflowInputs(run.block, resolverOf(frame.shown));
    } catch {
      // Reported by the resolution below.
    }
    const depth = frame.workflow.state.workflow!.depth + 1;
    this.whenSettled(
      task,
      (async () =>
        loadChildWorkflow(
          resolveWorkflowInputs(run.block, resolverOf(frame.references)),
          run,
          depth,
          this.limits,
        ))(),
      (_task, child) => this.openChild(frame, id, task, child, depth),
      (_task, message) =>
        this.fail(frame, id, message, task.startedAt, task.shownInputs, {
          errorOutput: { success: false, error: message },
        }),
    );
  }

  private openChild(frame: Frame, id: string, task: Task, child: ChildWorkflow, depth: number): void {
    const refused = refusalOf(graphViolations(child.graph, this.state.context.policy));
    if (refused) {
      this.refuse(
        frame,
        id,
        `Child workflow ${child.workflowId}: ${refused}`,
        task.startedAt,
        task.shownInputs,
      );
      return;
    }
    const frameId = `${frame.state.id}/${id}/workflow`;
    this.state.graphs[frameId] = child.graph;
    const block = frame.state.blocks[id];
    block.status = 'running';
    block.startedAt = task.startedAt;
    block.input = task.shownInputs;
    block.child = frameId;
    frame.running.add(id);
    const state = workflowFrame(
      frameId,
      frameId,
      this.indexOf(frameId),
      { depth, variables: {}, workflowId: child.workflowId, input: child.input },
      this.deps.now(),
      { frame: frame.state.id, block: id },
    );
    this.state.frames[frameId] = state;
    this.hydrate(state);
  }

  // ------------------------------------------------------------------------------------------
  // Step result

  private result(): StepResult {
    if (this.state.end) return { status: 'done', result: this.finish() };
    if (this.head < this.queue.length) return { status: 'running', checkpoint: this.state };
    let until = Number.POSITIVE_INFINITY;
    for (const frame of this.frames.values()) {
      for (const id of frame.waiting) until = Math.min(until, frame.state.blocks[id].waitUntil!);
    }
    if (until === Number.POSITIVE_INFINITY) {
      // Nothing runs, nothing is queued or waits, and yet the run has not ended: say so plainly.
      throw new Error('The run stopped with blocks that can never run');
    }
    const left = until - this.deps.now();
    // A wait that is (nearly) over is resumed by the next step; the budget ran out before it.
    if (left <= inProcessWaitLimitInMs) return { status: 'running', checkpoint: this.state };
    return { status: 'waiting', checkpoint: this.state, waitSeconds: left / 1000 };
  }

  private finish(): RunResult {
    const end = this.state.end!;
    const { context } = this.state;
    const root = this.frames.get(rootFrameId) ?? this.hydrate(this.state.frames[rootFrameId]);
    const startedAtMs = Date.parse(context.startedAt);
    const durationMs = Number.isFinite(startedAtMs) ? Math.max(0, end.at - startedAtMs) : 0;
    const endedAt = isoTime(end.at);
    let error = end.error;
    let output = error !== undefined ? undefined : end.response ? end.response.data : this.resultOf(root);
    const cap = this.limits.maxRunOutputBytes;
    if (error === undefined && jsonSizeInBytes(output, cap) > cap) {
      error = `The run's output is larger than ${formatBytes(cap)}, the limit of a run's output (MAX_RUN_OUTPUT_BYTES)`;
      output = undefined;
    }
    const failed = error !== undefined;
    const span: TraceSpan = {
      id: context.executionId,
      name: 'Workflow execution',
      type: 'workflow',
      startTime: context.startedAt,
      endTime: endedAt,
      duration: durationMs,
      status: failed ? 'error' : 'success',
      ...(failed ? { error } : {}),
      children: root.state.spans,
    };
    const result: RunResult = {
      success: !failed,
      output,
      httpStatus: failed ? (end.httpStatus ?? 500) : (end.response?.status ?? 200),
      responseHeaders: failed ? {} : (end.response?.headers ?? {}),
      traceSpans: [span],
      cost: this.state.cost,
      startedAt: context.startedAt,
      endedAt,
      durationMs,
    };
    if (failed) result.error = error;
    return result;
  }
}

/** Why a value of a response block's resolved `headers` cannot be sent, or false when all can. */
function headersProblemOf(inputs: Record<string, unknown>): string | false {
  const made = responseHeadersFrom(inputs.headers);
  return 'problem' in made && made.inValue ? made.problem : false;
}
