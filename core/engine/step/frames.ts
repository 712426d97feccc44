/**
 * Open frames: building the runtime of a frame from its checkpointed state, the reference scopes and
 * abort signal its blocks get, and taking it away once it has ended.
 */
import type { BlockRun, ConfigResolver } from '../blocks/types';
import { type FrameState, mainGraph } from '../checkpoint';
import {
  type IterationScope,
  type ReferenceScope,
  interpolateCode,
  interpolateText,
  resolveValue,
} from '../references';
import { type GraphIndex, indexGraph, topLevel } from '../scopes';
import type { RunContext } from '../types';
import { drain } from './edges';
import type { Frame, Step } from './runtime';

export function indexOf(step: Step, key: string): GraphIndex {
  let index = step.indexes.get(key);
  if (!index) {
    const graph = key === mainGraph ? step.state.context.graph : step.state.graphs[key];
    if (!graph) throw new Error(`Checkpoint has no graph "${key}"`);
    index = indexGraph(graph);
    step.indexes.set(key, index);
  }
  return index;
}

export function makeScope(
  step: Step,
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
    environment: step.environment,
    loop,
    parallel,
    redactEnvironment,
  };
}

export function resolverOf(scope: ReferenceScope): ConfigResolver {
  return {
    value: (value) => resolveValue(value, scope),
    text: (text) => interpolateText(text, scope),
    code: (code) => interpolateCode(code, scope),
  };
}

/** Builds the runtime of a frame from its state, and queues or skips the blocks that can be settled now. */
export function hydrate(step: Step, state: FrameState): Frame {
  const parent = state.owner ? step.frames.get(state.owner.frame) : undefined;
  if (state.owner && !parent) throw new Error(`Checkpoint frame ${state.id} has no parent frame`);
  const index = indexOf(step, state.graph);
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
    inFlight: new Set(),
    running: new Set(),
    waiting: new Set(),
    conditions: new Set(),
    resuming: new Set(),
    closed: false,
    completing: false,
  } as unknown as Frame;
  if (state.workflow || !parent) {
    frame.workflow = frame;
    frame.context = contextOf(step, state, index);
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
  frame.references = makeScope(step, frame, frame.outputs, frame.loop, frame.parallel, false);
  frame.shown = makeScope(step, frame, frame.outputs, frame.loop, frame.parallel, true);
  parent?.children.add(frame);
  step.frames.set(state.id, frame);

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
  drain(step, frame, settle);
  check(step, frame);
  return frame;
}

function contextOf(step: Step, state: FrameState, index: GraphIndex): RunContext {
  const context = step.state.context;
  const workflow = state.workflow;
  if (!workflow?.workflowId) return { ...context, environment: step.environment };
  return {
    ...context,
    workflowId: workflow.workflowId,
    graph: index.graph,
    input: workflow.input ?? {},
    environment: step.environment,
  };
}

/** Frames with nothing left to do are completed from the pump, so long chains of them never recurse. */
export function check(step: Step, frame: Frame): void {
  if (frame.remaining === 0 && !frame.closed && !frame.completing) {
    frame.completing = true;
    step.completing.push(frame);
  }
}

export function removeFrame(step: Step, frame: Frame): void {
  frame.closed = true;
  delete step.state.frames[frame.state.id];
  if (frame.state.workflow) delete step.state.graphs[frame.state.graph];
  step.frames.delete(frame.state.id);
  frame.parent?.children.delete(frame);
}

/** The signal the frame's blocks get: aborted, with the reason, once the frame is cancelled. */
export function signalOf(frame: Frame): AbortSignal {
  if (!frame.controller) {
    frame.controller = new AbortController();
    if (frame.cancelledBecause) frame.controller.abort(new Error(frame.cancelledBecause));
  }
  return frame.controller.signal;
}

export function blockRun(step: Step, frame: Frame, id: string): BlockRun {
  return {
    block: frame.index.graph.blocks[id],
    context: frame.context,
    deps: step.deps,
    signal: signalOf(frame),
  };
}
