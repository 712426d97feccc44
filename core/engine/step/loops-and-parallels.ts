/**
 * Loops and parallels: a container opens a frame per iteration or branch (a loop one at a time, a
 * parallel up to its concurrency), collects their results and spans, and succeeds with `{results}`
 * once the last has finished, or fails with the first that fails.
 */
import { evaluateExpression } from '../blocks/condition';
import type { ContainerState, FrameState } from '../checkpoint';
import { pendingBlocks } from '../checkpoint';
import { type ContainerPlan, planContainer, resolveContainerInputs } from '../containers';
import { type IterationScope, interpolateCode } from '../references';
import type { TraceSpan } from '../types';
import { fail, succeed } from './block-ends';
import { cancel } from './frame-ends';
import { hydrate, makeScope, removeFrame, resolverOf, signalOf } from './frames';
import { type Frame, messageOf, type Step } from './runtime';
import { iterationSpan } from './spans';
import { track, whenSettled } from './in-flight';

export function openContainer(step: Step, frame: Frame, id: string, type: 'loop' | 'parallel'): void {
  const block = frame.index.graph.blocks[id];
  const startedAt = step.deps.now();
  let input: Record<string, unknown> | undefined;
  try {
    input = resolveContainerInputs(block, resolverOf(frame.shown));
  } catch {
    // Reported by the resolution below.
  }
  let plan: ContainerPlan;
  try {
    plan = planContainer(type, resolveContainerInputs(block, resolverOf(frame.references)), step.limits);
  } catch (error) {
    fail(step, frame, id, messageOf(error), startedAt, input);
    return;
  }
  const state = frame.state.blocks[id];
  state.status = 'running';
  state.startedAt = startedAt;
  state.input = input;
  state.container = { ...plan, next: 0, active: [], results: [], iterations: [] };
  frame.running.add(id);
  advanceContainer(step, frame, id);
}

/** Starts what the container runs next, or finishes it. */
export function advanceContainer(step: Step, frame: Frame, id: string): void {
  const container = frame.state.blocks[id].container!;
  const total = container.total ?? Number.POSITIVE_INFINITY;
  if (container.kind === 'parallel') {
    while (container.active.length < step.limits.parallelConcurrency && container.next < total) {
      startIteration(step, frame, id, container);
    }
    if (container.active.length === 0) finishContainer(step, frame, id);
    return;
  }
  if (container.active.length > 0 || frame.conditions.has(id)) return;
  if (container.mode === 'while' || (container.mode === 'doWhile' && container.next > 0)) {
    frame.conditions.add(id);
    step.queue.push({ kind: 'condition', frame, block: id });
  } else if (container.next < total) startIteration(step, frame, id, container);
  else finishContainer(step, frame, id);
}

function startIteration(step: Step, frame: Frame, id: string, container: ContainerState): void {
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
    startedAt: step.deps.now(),
  };
  step.state.frames[state.id] = state;
  container.active.push(state.id);
  hydrate(step, state);
}

export function closeIteration(
  step: Step,
  frame: Frame,
  container: ContainerState,
  status: TraceSpan['status'],
  end: { output?: unknown; error?: string },
): void {
  const { state } = frame;
  container.iterations[state.iteration!.index] = iterationSpan(step, frame, container, status, end);
  container.active = container.active.filter((active) => active !== state.id);
  removeFrame(step, frame);
}

export function cancelIterations(step: Step, container: ContainerState, reason: string): void {
  for (const id of [...container.active]) {
    const iteration = step.frames.get(id);
    if (!iteration) continue;
    cancel(step, iteration, reason);
    closeIteration(step, iteration, container, 'error', { error: `Cancelled: ${reason}` });
  }
}

function finishContainer(step: Step, frame: Frame, id: string): void {
  const block = frame.state.blocks[id];
  const container = block.container!;
  const results = Array.from({ length: container.next }, (_, index) => container.results[index]);
  succeed(
    step,
    frame,
    id,
    { output: { results } },
    block.startedAt!,
    block.input,
    container.iterations.filter(Boolean),
  );
}

export function failComposite(step: Step, frame: Frame, id: string, message: string): void {
  const block = frame.state.blocks[id];
  const children = block.container?.iterations.filter(Boolean);
  frame.conditions.delete(id);
  fail(step, frame, id, message, block.startedAt!, block.input, { children });
}

/** `while` before each iteration, `doWhile` after: `<loop.index>` is the iteration it decides on. */
export function startCondition(step: Step, frame: Frame, id: string): void {
  const container = frame.state.blocks[id].container!;
  const inFlight = track(step, frame, id, 'condition');
  const outputs = Object.create(frame.outputs) as Record<string, unknown>;
  Object.assign(outputs, container.lastOutputs);
  const loop: IterationScope = {
    index: container.next,
    currentItem: undefined,
    items: container.collection,
  };
  const scope = makeScope(step, frame, outputs, loop, frame.parallel, false);
  whenSettled(
    step,
    inFlight,
    (async () =>
      evaluateExpression(
        interpolateCode(container.condition!, scope),
        step.deps,
        signalOf(frame),
        step.state.context.workspaceId,
      ))(),
    (_step, _inFlight, holds) => {
      frame.conditions.delete(id);
      if (!holds) finishContainer(step, frame, id);
      else if (container.next >= step.limits.maxLoopIterations) {
        failComposite(
          step,
          frame,
          id,
          `Loop reached the limit of ${step.limits.maxLoopIterations} iterations and its condition still holds`,
        );
      } else startIteration(step, frame, id, container);
    },
    (_step, _inFlight, { message }) => {
      frame.conditions.delete(id);
      failComposite(step, frame, id, `Loop condition failed: ${message}`);
    },
  );
}
