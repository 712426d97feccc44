/**
 * What a step returns: the run's result once it has ended, else the checkpoint to go on from, with
 * how long the run may sleep when all that is left is waiting.
 */
import { rootFrameId, type StepResult } from '../checkpoint';
import { inProcessWaitLimitInMs } from '../limits';
import type { RunResult } from '../types';
import { resultOf } from './frame-ends';
import { hydrate } from './frames';
import { runOutputError } from './output-caps';
import type { Step } from './runtime';
import { isoTime, runSpan } from './spans';

export function stepResult(step: Step): StepResult {
  if (step.state.end) return { status: 'done', result: runResult(step) };
  if (step.head < step.queue.length) return { status: 'running', checkpoint: step.state };
  let until = Number.POSITIVE_INFINITY;
  for (const frame of step.frames.values()) {
    for (const id of frame.waiting) until = Math.min(until, frame.state.blocks[id].waitUntil!);
  }
  if (until === Number.POSITIVE_INFINITY) {
    // Nothing runs, nothing is queued or waits, and yet the run has not ended: say so plainly.
    throw new Error('The run stopped with blocks that can never run');
  }
  const left = until - step.deps.now();
  // A wait that is (nearly) over is resumed by the next step; the budget ran out before it.
  if (left <= inProcessWaitLimitInMs) return { status: 'running', checkpoint: step.state };
  return { status: 'waiting', checkpoint: step.state, waitSeconds: left / 1000 };
}

function runResult(step: Step): RunResult {
  const end = step.state.end!;
  const { context } = step.state;
  const root = step.frames.get(rootFrameId) ?? hydrate(step, step.state.frames[rootFrameId]);
  const startedAtMs = Date.parse(context.startedAt);
  const durationMs = Number.isFinite(startedAtMs) ? Math.max(0, end.at - startedAtMs) : 0;
  const endedAt = isoTime(end.at);
  let error = end.error;
  let output = error !== undefined ? undefined : end.response ? end.response.data : resultOf(root);
  if (error === undefined) {
    error = runOutputError(output, step.limits);
    if (error !== undefined) output = undefined;
  }
  const failed = error !== undefined;
  const result: RunResult = {
    success: !failed,
    output,
    httpStatus: failed ? (end.httpStatus ?? 500) : (end.response?.status ?? 200),
    responseHeaders: failed ? {} : (end.response?.headers ?? {}),
    traceSpans: [runSpan(step, endedAt, durationMs, error, root.state.spans)],
    cost: step.state.cost,
    startedAt: context.startedAt,
    endedAt,
    durationMs,
  };
  if (failed) result.error = error;
  return result;
}
