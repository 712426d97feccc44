/**
 * How a block ends: it succeeds (its output capped, its span recorded, its outgoing edges followed),
 * fails (along its error edge, else failing its frame), is refused by the access policy (ending the
 * run), or is cancelled.
 */
import type { BlockOutcome } from '../blocks/types';
import { type BlockState, type BlockStatus, mainGraph, rootFrameId } from '../checkpoint';
import { recordModelUsage } from '../cost';
import { omittedNote, spanValue } from '../span-values';
import type { TraceSpan } from '../types';
import { settleOutgoing } from './edges';
import { cancel, failFrame, respond } from './frame-ends';
import { check } from './frames';
import { blockOutputBytes, blockOutputTooLarge } from './output-caps';
import type { Frame, Step } from './runtime';
import { blockSpan } from './spans';

/** Leaves a finished block's state with what later steps need: status, output, error, order. */
function settleState(step: Step, frame: Frame, id: string, status: BlockStatus): BlockState {
  const previous = frame.state.blocks[id];
  const block: BlockState = { status, sequence: step.state.executed };
  if (previous.output !== undefined && status === 'done') block.output = previous.output;
  frame.state.blocks[id] = block;
  frame.running.delete(id);
  frame.waiting.delete(id);
  frame.remaining -= 1;
  return block;
}

const followAllButError = (handle: string): boolean => handle !== 'error';
const followError = (handle: string): boolean => handle === 'error';

export function succeed(
  step: Step,
  frame: Frame,
  id: string,
  outcome: BlockOutcome,
  startedAt: number,
  input: Record<string, unknown> | undefined,
  children?: TraceSpan[],
): void {
  const { limits } = step;
  const outputBytes = blockOutputBytes(frame.index.graph.blocks[id].type, outcome.output, limits);
  if (outputBytes > limits.maxBlockOutputBytes) {
    fail(step, frame, id, blockOutputTooLarge(limits), startedAt, input, { children });
    return;
  }
  const span = blockSpan(step, frame, id, startedAt, 'success', input);
  span.output =
    outputBytes > limits.maxSpanValueBytes ? omittedNote(limits.maxSpanValueBytes) : outcome.output;
  if (children) span.children = children;
  const block = settleState(step, frame, id, 'done');
  block.output = outcome.output;
  frame.outputs[frame.index.names.get(id)!] = outcome.output;
  // Child workflows' blocks are not the caller's to select, so only the run's own graph reports.
  if (step.deps.onBlockOutput && frame.state.graph === mainGraph) step.deps.onBlockOutput(id, outcome.output);
  if (outcome.usage) recordModelUsage(step.state, span, outcome.usage);
  if (outcome.variables) Object.assign(frame.workflow.state.workflow!.variables, outcome.variables);
  frame.state.spans.push(span);
  if (outcome.response) {
    respond(step, frame.workflow, outcome.response);
    return;
  }
  const selected = outcome.selectedHandles;
  settleOutgoing(step, frame, id, selected ? (handle) => selected.includes(handle) : followAllButError);
  check(step, frame);
}

/**
 * A block failed. With an error edge it counts as done (output `{error}`, or `errorOutput`) and
 * only error edges are followed; without one its frame fails.
 */
export function fail(
  step: Step,
  frame: Frame,
  id: string,
  message: string,
  startedAt: number,
  input: Record<string, unknown> | undefined,
  extra: { children?: TraceSpan[]; errorOutput?: unknown } = {},
): void {
  const span = blockSpan(step, frame, id, startedAt, 'error', input);
  span.error = message;
  if (extra.children) span.children = extra.children;
  const { scope } = frame;
  const hasErrorEdge = scope.outgoing.get(id)!.some((position) => scope.handles[position] === 'error');
  if (hasErrorEdge) {
    const block = settleState(step, frame, id, 'done');
    block.error = message;
    block.output = extra.errorOutput ?? { error: message };
    span.output = spanValue(block.output, step.limits.maxSpanValueBytes);
    frame.outputs[frame.index.names.get(id)!] = block.output;
    frame.state.spans.push(span);
    settleOutgoing(step, frame, id, followError);
    check(step, frame);
    return;
  }
  const block = settleState(step, frame, id, 'failed');
  block.error = message;
  frame.state.spans.push(span);
  failFrame(step, frame, `${frame.index.graph.blocks[id].name}: ${message}`);
}

/**
 * A block the access policy does not allow ends the whole run at once: no error edge, loop or
 * parent workflow may carry on past it, as that would let a workflow route around the policy.
 */
export function refuse(
  step: Step,
  frame: Frame,
  id: string,
  message: string,
  startedAt: number,
  input: Record<string, unknown> | undefined,
  httpStatus?: number,
): void {
  const span = blockSpan(step, frame, id, startedAt, 'error', input);
  span.error = message;
  settleState(step, frame, id, 'failed').error = message;
  frame.state.spans.push(span);
  if (!step.state.end)
    step.state.end = { at: step.deps.now(), error: message, ...(httpStatus ? { httpStatus } : {}) };
  const root = step.frames.get(rootFrameId);
  if (root && !root.closed) {
    cancel(step, root, 'the run failed');
    root.closed = true;
  }
}

export function cancelBlock(
  step: Step,
  frame: Frame,
  id: string,
  startedAt: number,
  input: Record<string, unknown> | undefined,
  error: string,
  children?: TraceSpan[],
): void {
  if (frame.state.blocks[id].status === 'cancelled') return;
  const span = blockSpan(step, frame, id, startedAt, 'error', input);
  span.error = error;
  if (children) span.children = children;
  settleState(step, frame, id, 'cancelled');
  frame.state.spans.push(span);
}
