/**
 * How a frame ends. When it has no block left to run it completes: a branch or iteration hands its
 * result to its container, a child workflow to its `workflow` block, the root frame ends the run. A
 * block failing without an error edge fails its frame: the rest of the frame and its sibling
 * iterations are cancelled (their in-flight blocks see their abort signal fire and their spans say
 * `Cancelled: ...`), and the failure moves up to the container, which may have an error edge of its own.
 */
import type { ResponseData } from '../blocks/types';
import type { TraceSpan } from '../types';
import { cancelBlock, fail, succeed } from './block-ends';
import { removeFrame } from './frames';
import { advanceContainer, cancelIterations, closeIteration, failComposite } from './loops-and-parallels';
import type { Frame, Step } from './runtime';
import { release } from './in-flight';

export function completeFrame(step: Step, frame: Frame): void {
  const { parent, state } = frame;
  if (!parent) {
    if (!step.state.end) step.state.end = { at: step.deps.now() };
    frame.closed = true;
    return;
  }
  const owner = parent.state.blocks[state.owner!.block];
  if (state.iteration) {
    const container = owner.container!;
    const result = resultOf(frame);
    container.results[state.iteration.index] = result;
    if (container.kind === 'loop') container.lastOutputs = { ...frame.outputs };
    closeIteration(step, frame, container, 'success', { output: result });
    advanceContainer(step, parent, state.owner!.block);
    return;
  }
  const response = state.workflow!.response;
  const result = response ? response.data : resultOf(frame);
  removeFrame(step, frame);
  succeed(
    step,
    parent,
    state.owner!.block,
    { output: { success: true, result } },
    owner.startedAt!,
    owner.input,
    state.spans,
  );
}

export function failFrame(step: Step, frame: Frame, message: string): void {
  if (frame.closed) return;
  const { parent, state } = frame;
  if (!parent) {
    if (!step.state.end) step.state.end = { at: step.deps.now(), error: message };
    cancel(step, frame, 'the run failed');
    frame.closed = true;
    return;
  }
  const ownerId = state.owner!.block;
  const owner = parent.state.blocks[ownerId];
  if (state.iteration) {
    const container = owner.container!;
    const label = `${container.kind === 'loop' ? 'Iteration' : 'Branch'} ${state.iteration.index}`;
    cancel(step, frame, `${label.toLowerCase()} failed`);
    closeIteration(step, frame, container, 'error', { error: message });
    cancelIterations(step, container, `${label.toLowerCase()} failed`);
    failComposite(step, parent, ownerId, `${label}: ${message}`);
    return;
  }
  cancel(step, frame, 'the workflow failed');
  removeFrame(step, frame);
  fail(step, parent, ownerId, message, owner.startedAt!, owner.input, {
    children: state.spans,
    errorOutput: { success: false, error: message },
  });
}

/** A child workflow ended at a response block: the rest of it stops, and its result is the response. */
export function respond(step: Step, workflow: Frame, response: ResponseData): void {
  if (!workflow.parent) {
    if (!step.state.end) step.state.end = { at: step.deps.now(), response };
    cancel(step, workflow, 'the run ended at a response block');
    workflow.closed = true;
    return;
  }
  workflow.state.workflow!.response = response;
  cancel(step, workflow, 'the workflow ended at a response block');
  if (!workflow.completing) {
    workflow.completing = true;
    step.completing.push(workflow);
  }
}

/** The output of a finished frame: of its last block, or of its last blocks keyed by name. */
export function resultOf(frame: Frame): unknown {
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
export function cancel(step: Step, frame: Frame, reason: string): void {
  const error = `Cancelled: ${reason}`;
  const underWay = frame.running.size > 0 || frame.inFlight.size > 0 || frame.waiting.size > 0;
  for (const id of [...frame.running]) {
    const block = frame.state.blocks[id];
    let children: TraceSpan[] | undefined;
    if (block.container) {
      cancelIterations(step, block.container, reason);
      children = block.container.iterations.filter(Boolean);
    } else if (block.child) {
      const child = step.frames.get(block.child);
      if (child) {
        cancel(step, child, reason);
        removeFrame(step, child);
        children = child.state.spans;
      }
    }
    cancelBlock(step, frame, id, block.startedAt!, block.input, error, children);
  }
  for (const inFlight of [...frame.inFlight]) {
    release(step, inFlight);
    if (inFlight.kind !== 'condition') {
      cancelBlock(step, frame, inFlight.block, inFlight.startedAt, inFlight.shownInputs, error);
    }
  }
  for (const id of [...frame.waiting]) {
    const block = frame.state.blocks[id];
    cancelBlock(step, frame, id, block.startedAt!, block.input, error);
  }
  frame.conditions.clear();
  frame.cancelledBecause ??= error;
  // Only work under way listens to the signal. With none (a run that ended at its response
  // block), the abort (an Error with its stack, an event) waits for whoever asks for it later.
  if (underWay) frame.controller?.abort(new Error(frame.cancelledBecause));
  else frame.controller = undefined;
}
