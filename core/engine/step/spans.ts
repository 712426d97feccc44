/**
 * Trace spans: one per finished block, iteration or branch, numbered in the order they finish, and
 * the run's own span around them.
 */
import type { ContainerState } from '../checkpoint';
import { spanInput, spanValue } from '../span-values';
import type { TraceSpan } from '../types';
import type { Frame, Step } from './runtime';

let lastIsoTime = { milliseconds: Number.NaN, text: '' };

/** Consecutive spans mostly start and end within the same millisecond; formatting dates is not free. */
export function isoTime(milliseconds: number): string {
  if (milliseconds !== lastIsoTime.milliseconds) {
    lastIsoTime = { milliseconds, text: new Date(milliseconds).toISOString() };
  }
  return lastIsoTime.text;
}

/** The span of a block that ends now; counts it among the run's spans. */
export function blockSpan(
  step: Step,
  frame: Frame,
  id: string,
  startedAt: number,
  status: TraceSpan['status'],
  input: Record<string, unknown> | undefined,
): TraceSpan {
  const block = frame.index.graph.blocks[id];
  const endedAt = step.deps.now();
  step.state.executed += 1;
  const span: TraceSpan = {
    id: `${step.state.context.executionId}-${step.state.executed}`,
    name: block.name,
    type: block.type,
    blockId: block.id,
    startTime: isoTime(startedAt),
    endTime: isoTime(endedAt),
    duration: endedAt - startedAt,
    status,
  };
  if (input !== undefined) span.input = spanInput(input, step.limits.maxSpanValueBytes);
  const { iteration, owner } = frame.state;
  if (iteration && owner) {
    if (iteration.kind === 'loop') span.loopId = owner.block;
    else span.parallelId = owner.block;
    span.iterationIndex = iteration.index;
  }
  return span;
}

/** The span of an iteration or branch that ends now, holding the spans of its blocks. */
export function iterationSpan(
  step: Step,
  frame: Frame,
  container: ContainerState,
  status: TraceSpan['status'],
  end: { output?: unknown; error?: string },
): TraceSpan {
  const { state } = frame;
  const { index } = state.iteration!;
  const containerId = state.owner!.block;
  const endedAt = step.deps.now();
  step.state.executed += 1;
  return {
    id: `${step.state.context.executionId}-${step.state.executed}`,
    name: `${container.kind === 'loop' ? 'Iteration' : 'Branch'} ${index}`,
    type: container.kind === 'loop' ? 'loop-iteration' : 'parallel-branch',
    blockId: containerId,
    startTime: isoTime(state.startedAt),
    endTime: isoTime(endedAt),
    duration: endedAt - state.startedAt,
    status,
    ...(end.error === undefined ? {} : { error: end.error }),
    ...(end.output === undefined ? {} : { output: spanValue(end.output, step.limits.maxSpanValueBytes) }),
    children: state.spans,
    ...(container.kind === 'loop' ? { loopId: containerId } : { parallelId: containerId }),
    iterationIndex: index,
  };
}

/** The run's span, around the spans of its top level. */
export function runSpan(
  step: Step,
  endedAt: string,
  durationMs: number,
  error: string | undefined,
  children: TraceSpan[],
): TraceSpan {
  const { context } = step.state;
  const failed = error !== undefined;
  return {
    id: context.executionId,
    name: 'Workflow execution',
    type: 'workflow',
    startTime: context.startedAt,
    endTime: endedAt,
    duration: durationMs,
    status: failed ? 'error' : 'success',
    ...(failed ? { error } : {}),
    children,
  };
}
