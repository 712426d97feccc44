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
import type { Frame, Step, Task } from './runtime';
import { release, track, whenSettled } from './tasks';

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
  const task = track(step, frame, id, 'block');
  let work: Promise<BlockOutcome>;
  try {
    const inputs = resolveInputs(definition, run, frame.references);
    const refused = blockRefusal(step.state.context, run.block, inputs);
    if (refused) {
      release(step, task);
      refuse(step, frame, id, refused, startedAt, shownInputs(definition, run, frame));
      return;
    }
    // Without `{{NAME}}` in the config, what the span shows is what the block got.
    task.shownInputs = frame.index.usesEnvironment(id) ? shownInputs(definition, run, frame) : inputs;
    work = definition.execute(inputs, run);
  } catch (error) {
    task.shownInputs = shownInputs(definition, run, frame);
    work = Promise.reject(error);
  }
  whenSettled(step, task, work, blockSucceeded, blockFailed);
}

function blockSucceeded(step: Step, task: Task, outcome: BlockOutcome): void {
  if (outcome.suspendForMs !== undefined && outcome.suspendForMs > 0) {
    suspend(task.frame, task.block, task, outcome);
  } else succeed(step, task.frame, task.block, outcome, task.startedAt, task.shownInputs);
}

function blockFailed(step: Step, task: Task, message: string): void {
  fail(step, task.frame, task.block, message, task.startedAt, task.shownInputs);
}

function suspend(frame: Frame, id: string, task: Task, outcome: BlockOutcome): void {
  const block = frame.state.blocks[id];
  block.status = 'waiting';
  block.startedAt = task.startedAt;
  block.input = task.shownInputs;
  block.output = outcome.output;
  block.waitUntil = task.startedAt + outcome.suspendForMs!;
  frame.waiting.add(id);
}

export function startResume(step: Step, frame: Frame, id: string): void {
  frame.waiting.delete(id);
  frame.resuming.delete(id);
  const block = frame.state.blocks[id];
  const task = track(step, frame, id, 'resume');
  task.startedAt = block.startedAt!;
  task.shownInputs = block.input;
  const left = block.waitUntil! - step.deps.now();
  whenSettled(
    step,
    task,
    left > 0 ? sleepOf(step.deps)(left, signalOf(frame)) : Promise.resolve(),
    () => succeed(step, frame, id, { output: block.output }, task.startedAt, task.shownInputs),
    blockFailed,
  );
}
