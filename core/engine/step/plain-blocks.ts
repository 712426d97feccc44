/**
 * Plain blocks (neither a container nor a child workflow): their config resolved, checked against the
 * access policy, executed; a `wait` that lasts longer than a step suspends and is resumed later.
 */
import { blockDefinition } from '../blocks/registry';
import type { BlockDefinition, BlockOutcome, BlockRun } from '../blocks/types';
import { sleepOf } from '../blocks/wait';
import type { ReferenceScope } from '../references';
import { fail, refuse, succeed } from './block-ends';
import { blockRun, resolverOf, signalOf } from './frames';
import { blockRefusal } from './permissions';
import type { Frame, Step, WorkInFlight } from './runtime';
import { type Failure, release, track, whenSettled } from './in-flight';

function resolveInputs(
  definition: BlockDefinition,
  run: BlockRun,
  scope: ReferenceScope,
): Record<string, unknown> {
  const resolve = resolverOf(scope);
  if (definition.resolveInputs) return definition.resolveInputs(run.block, resolve, run);
  return resolve.value(run.block.config) as Record<string, unknown>;
}

/** The resolved config with `{{NAME}}` left as written; none when it cannot be resolved. */
function shownInputs(
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

export function startBlock(step: Step, frame: Frame, id: string): void {
  const run = blockRun(step, frame, id);
  const definition = blockDefinition(run.block.type);
  const startedAt = step.deps.now();
  const inFlight = track(step, frame, id, 'block');
  let work: Promise<BlockOutcome>;
  try {
    const inputs = resolveInputs(definition, run, frame.references);
    const refused = blockRefusal(step.state.context, run.block, inputs);
    if (refused) {
      release(step, inFlight);
      refuse(step, frame, id, refused, startedAt, shownInputs(definition, run, frame));
      return;
    }
    // Without `{{NAME}}` in the config, what the span shows is what the block got.
    inFlight.shownInputs = frame.index.usesEnvironment(id) ? shownInputs(definition, run, frame) : inputs;
    work = definition.execute(inputs, run);
  } catch (error) {
    inFlight.shownInputs = shownInputs(definition, run, frame);
    work = Promise.reject(error);
  }
  whenSettled(step, inFlight, work, blockSucceeded, blockFailed);
}

function blockSucceeded(step: Step, inFlight: WorkInFlight, outcome: BlockOutcome): void {
  if (outcome.suspendForMs !== undefined && outcome.suspendForMs > 0) {
    suspend(inFlight.frame, inFlight.block, inFlight, outcome);
  } else succeed(step, inFlight.frame, inFlight.block, outcome, inFlight.startedAt, inFlight.shownInputs);
}

function blockFailed(step: Step, inFlight: WorkInFlight, { message, httpStatus }: Failure): void {
  const { frame, block, startedAt, shownInputs } = inFlight;
  // The caller's data at fault in the run's own workflow: the run ends with that status (a 400).
  if (httpStatus && !frame.workflow.parent)
    refuse(step, frame, block, message, startedAt, shownInputs, httpStatus);
  else fail(step, frame, block, message, startedAt, shownInputs);
}

function suspend(frame: Frame, id: string, inFlight: WorkInFlight, outcome: BlockOutcome): void {
  const block = frame.state.blocks[id];
  block.status = 'waiting';
  block.startedAt = inFlight.startedAt;
  block.input = inFlight.shownInputs;
  block.output = outcome.output;
  block.waitUntil = inFlight.startedAt + outcome.suspendForMs!;
  frame.waiting.add(id);
}

export function startResume(step: Step, frame: Frame, id: string): void {
  frame.waiting.delete(id);
  frame.resuming.delete(id);
  const block = frame.state.blocks[id];
  const inFlight = track(step, frame, id, 'resume');
  inFlight.startedAt = block.startedAt!;
  inFlight.shownInputs = block.input;
  const left = block.waitUntil! - step.deps.now();
  whenSettled(
    step,
    inFlight,
    left > 0 ? sleepOf(step.deps)(left, signalOf(frame)) : Promise.resolve(),
    () => succeed(step, frame, id, { output: block.output }, inFlight.startedAt, inFlight.shownInputs),
    blockFailed,
  );
}
