/**
 * The run model: a run is a series of steps over a JSON checkpoint. A step runs the
 * ready blocks (all incoming edges settled, at least one taken), all of them at once, until the run
 * ends, the only work left is waiting for `wait` blocks, or the step's time budget is used up.
 *
 * The checkpoint holds no environment values: each step is given the (decrypted) environment and
 * uses it only in memory. How blocks, loops, parallels and child workflows are run is in
 * step/ (runner.ts); the block types themselves are in blocks/.
 */
import { graphViolations, refusalOf } from '../permissions/check';
import { sleepOf } from './blocks/wait';
import { emptyCost } from './cost';
import { validatedGraph } from './graph';
import {
  type Checkpoint,
  type CheckpointContext,
  mainGraph,
  rootFrameId,
  type StepOptions,
  type StepResult,
  workflowFrame,
} from './checkpoint';
import { StepRunner } from './step/runner';
import { indexGraph } from './scopes';
import type { EngineDeps, EngineLimits, RunContext, RunResult } from './types';

export type {
  BlockState,
  BlockStatus,
  Checkpoint,
  CheckpointContext,
  ContainerState,
  EdgeStatus,
  FrameState,
  RunEnd,
  StepOptions,
  StepResult,
  WorkflowFrameState,
} from './checkpoint';

/**
 * Validates the graph (throws `ValidationError`; literal loop iterations and parallel counts are
 * checked against `limits`) and returns the checkpoint of a run not yet begun. An `environment` in
 * the context is not kept: pass it to each step instead.
 */
export function startRun(
  context: CheckpointContext & { environment?: Record<string, string> },
  limits?: Partial<EngineLimits>,
): Checkpoint {
  const graph = validatedGraph(context.graph, { limits });
  const { executionId, workflowId, workspaceId, trigger, input, startedAt, policy } = context;
  const startedAtMs = Date.parse(startedAt);
  // A block the policy refuses fails the run before any block runs, wherever it sits in the graph.
  const refused = refusalOf(graphViolations(graph, policy));
  return {
    version: 2,
    context: {
      executionId,
      workflowId,
      workspaceId,
      trigger,
      input,
      graph,
      startedAt,
      ...(policy === undefined ? {} : { policy }),
    },
    graphs: {},
    frames: {
      [rootFrameId]: workflowFrame(
        rootFrameId,
        mainGraph,
        indexGraph(graph),
        { depth: 0, variables: {} },
        Number.isFinite(startedAtMs) ? startedAtMs : 0,
      ),
    },
    cost: emptyCost(),
    executed: 0,
    ...(refused === undefined
      ? {}
      : { end: { at: Number.isFinite(startedAtMs) ? startedAtMs : 0, error: refused } }),
  };
}

/** Runs ready blocks until the run ends, only waits are left, or the budget is used. Does not modify `checkpoint`. */
export async function runStep(
  checkpoint: Checkpoint,
  deps: EngineDeps,
  options: StepOptions,
): Promise<StepResult> {
  return runStepInPlace(cloneCheckpoint(checkpoint), deps, options);
}

/**
 * `runStep` on a checkpoint its caller gives up, such as the one `startRun` just returned: the step
 * works on it and changes it rather than a copy (copying a small run's state costs about as much
 * CPU as scheduling its blocks).
 */
export async function runStepInPlace(
  checkpoint: Checkpoint,
  deps: EngineDeps,
  options: StepOptions,
): Promise<StepResult> {
  if (checkpoint.version !== 2) {
    throw new Error(`Checkpoint version ${String(checkpoint.version)} is not supported by this engine`);
  }
  return new StepRunner(checkpoint, deps, options).run();
}

/** A copy the step may change. Graphs are never changed by a run, so they are shared rather than copied. */
function cloneCheckpoint(checkpoint: Checkpoint): Checkpoint {
  const { context, graphs, frames, cost, end, ...rest } = checkpoint;
  return {
    ...rest,
    context,
    graphs: { ...graphs },
    frames: structuredClone(frames),
    cost: structuredClone(cost),
    ...(end ? { end: structuredClone(end) } : {}),
  };
}

/**
 * Runs a whole workflow in this process, for tests, benchmarks and the streaming handler. A waiting
 * step is slept through with `deps.sleep` (tests pass one that moves their clock).
 */
export async function runToCompletion(context: RunContext, deps: EngineDeps): Promise<RunResult> {
  const options: StepOptions = { budgetInMs: Number.POSITIVE_INFINITY, environment: context.environment };
  let checkpoint = startRun(context, deps.limits);
  for (;;) {
    // Each checkpoint is this loop's own: the one startRun made, then the last step's.
    const step = await runStepInPlace(checkpoint, deps, options);
    if (step.status === 'done') return step.result;
    if (step.status === 'waiting') await sleepOf(deps)(Math.ceil(step.waitSeconds * 1000));
    checkpoint = step.checkpoint;
  }
}
