/**
 * The run use cases behind the state machine: Step (run blocks from the checkpoint), Finalize
 * (write the log entry, shape the answer). Preparing a run is core/runs/prepare.ts.
 */
import { blockLogsOf } from './block-logs';
import { completionEventOf } from '../notifications/events';
import type { NotificationQueue } from '../notifications/types';
import { filesIn } from '../files/collect';
import { runStep, runStepInPlace, startRun, type Checkpoint } from '../engine/run';
import { addCharge } from '../engine/cost';
import type { EngineDeps, RunResult, WorkflowGraph } from '../engine/types';
import { redactSecrets } from '../environment/redact';
import type { ExecutionAnswer, ExecutionRequest, ExecutionState, StepOutcome } from './types';
import { type SettleDeps, settleJob } from '../jobs/service';
import { recordRunCost } from '../limits/service';
import { recordRunMetrics } from '../metrics/record';
import type { MetricsStore } from '../metrics/types';
import type { LimitsStore } from '../limits/types';
import { releaseRunSlot, type RunSlotStore } from '../limits/run-slots';
import { literalModelKeysOf, maskModelKeys } from '../workflows/model-keys';
import type { WorkflowStore } from '../workflows/types';
import { inputOf } from './by-reference';
import { draftVersion } from './draft';
import { type CheckpointStore, type ExecutionLogEntry, type ExecutionLogStore, logIdFor } from './log';

/** Results above this travel by reference: Step Functions caps a state's payload at 256 KB. */
export const inlineResultLimitInBytes = 200 * 1024;

export { draftVersion };

export interface StepDeps {
  deployments: Pick<WorkflowStore, 'getDeployment'>;
  /** Where a draft run (deployment version 0) reads its graph: the saved workflow. */
  drafts?: Pick<WorkflowStore, 'getWorkflow'>;
  checkpoints: CheckpointStore;
  engine: EngineDeps;
  /** How long one step may run blocks before it checkpoints and hands back to the state machine. */
  budgetInMs: number;
  /** How long a sync run may take in all, counted from its start; past it the run ends as timed out. */
  syncBudgetInMs?: number;
  /** The workspace's decrypted environment; read per step and never checkpointed. */
  environmentOf?: (workspaceId: string) => Promise<Record<string, string>>;
  now?: () => number;
}

const graphsUsingEnvironment = new WeakMap<WorkflowGraph, boolean>();

/**
 * Whether a deployed graph can need `{{NAME}}` values: reading (and decrypting) the environment
 * costs a query and KMS calls, so runs whose graph cannot use it skip them. Child workflows may use
 * it, so a graph with a workflow block counts. Deployments are immutable, so the answer is kept.
 */
export function usesEnvironment(graph: WorkflowGraph): boolean {
  let uses = graphsUsingEnvironment.get(graph);
  if (uses === undefined) {
    uses =
      JSON.stringify(graph).includes('{{') ||
      Object.values(graph.blocks).some((block) => block.type === 'workflow');
    graphsUsingEnvironment.set(graph, uses);
  }
  return uses;
}

/** The graph a run runs: its deployment's, or the saved workflow's for a draft run. */
export async function graphOf(
  deps: Pick<StepDeps, 'deployments' | 'drafts'>,
  state: Pick<ExecutionState, 'deploymentVersion' | 'workflowId' | 'executionId'>,
): Promise<WorkflowGraph> {
  if (state.deploymentVersion === draftVersion) {
    const workflow = await deps.drafts?.getWorkflow(state.workflowId);
    if (!workflow)
      throw new Error(`Workflow ${state.workflowId} of draft run ${state.executionId} is missing`);
    return workflow.state;
  }
  const deployment = await deps.deployments.getDeployment(state.workflowId, state.deploymentVersion);
  if (!deployment)
    throw new Error(`Deployment ${state.deploymentVersion} of workflow ${state.workflowId} is missing`);
  return deployment.state;
}

/**
 * What a run's answer, log entry and spans must not show: the environment's values, and model keys
 * written into the graph (a provider's error may quote the key it refused).
 */
export function secretsOfRun(environment: Record<string, string>, graph: WorkflowGraph): string[] {
  return [...Object.values(environment), ...literalModelKeysOf(graph)];
}

export async function environmentFor(
  deps: Pick<StepDeps, 'environmentOf'>,
  graph: WorkflowGraph,
  workspaceId: string,
): Promise<Record<string, string>> {
  if (!deps.environmentOf || !usesEnvironment(graph)) return {};
  return deps.environmentOf(workspaceId);
}

const resultKey = (executionId: string) => `${executionId}#result`;

export async function executeStep(deps: StepDeps, state: ExecutionState): Promise<StepOutcome> {
  const now = deps.now ?? Date.now;
  const resuming = state.step !== undefined && state.step.status !== 'done';
  const checkpoint = resuming
    ? await loadCheckpoint(deps, state.executionId)
    : await firstCheckpoint(deps, state);
  const environment = await environmentFor(deps, checkpoint.context.graph, state.workspaceId);
  const syncLeftInMs = syncTimeLeftInMs(deps, state, now());
  const budgetInMs = Math.min(deps.budgetInMs, syncLeftInMs);
  // A first checkpoint was made here for this step alone; a loaded one may be the store's own object.
  const step = resuming ? runStep : runStepInPlace;
  let outcome = await step(checkpoint, deps.engine, { budgetInMs, environment });
  if (outcome.status !== 'done' && syncLeftInMs !== Number.POSITIVE_INFINITY) {
    const leftInMs = syncTimeLeftInMs(deps, state, now());
    const needsInMs = outcome.status === 'waiting' ? outcome.waitSeconds * 1000 : Number.POSITIVE_INFINITY;
    if (needsInMs > leftInMs)
      outcome = { status: 'done', result: timedOutResult(deps, outcome.checkpoint, now()) };
  }
  if (outcome.status === 'running') {
    await deps.checkpoints.save(state.executionId, outcome.checkpoint);
    return { status: 'running' };
  }
  if (outcome.status === 'waiting') {
    await deps.checkpoints.save(state.executionId, outcome.checkpoint);
    // A Wait state takes whole seconds only; a fraction would fail the run outside the Catch.
    return { status: 'waiting', waitSeconds: Math.max(1, Math.ceil(outcome.waitSeconds)) };
  }
  // Only a run that was checkpointed has a checkpoint to remove; most runs finish in their first step.
  if (resuming) await deps.checkpoints.delete(state.executionId);
  // Secret values never leave the step: not in the answer, the log entry, or the trace spans.
  const result = redactSecrets(
    outcome.result,
    secretsOfRun(environment, checkpoint.context.graph),
  ) as RunResult;
  const json = JSON.stringify(result);
  if (Buffer.byteLength(json) <= inlineResultLimitInBytes) return { status: 'done', result };
  await deps.checkpoints.saveJson(resultKey(state.executionId), json);
  return { status: 'done', result: { resultRef: resultKey(state.executionId) } };
}

function syncTimeLeftInMs(deps: StepDeps, state: ExecutionState, nowInMs: number): number {
  if (state.mode !== 'sync' || deps.syncBudgetInMs === undefined) return Number.POSITIVE_INFINITY;
  return Math.max(0, deps.syncBudgetInMs - (nowInMs - Date.parse(state.startedAt)));
}

/** The HTTP status of a sync run that could not finish within the sync budget. */
export const timedOutHttpStatus = 408;

/** A sync run out of time ends here, with the spans and cost of the blocks that did finish. */
function timedOutResult(deps: StepDeps, checkpoint: Checkpoint, nowInMs: number): RunResult {
  const budgetInSeconds = Math.round((deps.syncBudgetInMs ?? 0) / 1000);
  const startedAt = checkpoint.context.startedAt;
  const endedAt = new Date(nowInMs).toISOString();
  return {
    success: false,
    output: undefined,
    error: `The run did not finish within the ${budgetInSeconds} s a synchronous execution may take; run it asynchronously (header X-Execution-Mode: async)`,
    httpStatus: timedOutHttpStatus,
    responseHeaders: {},
    traceSpans: checkpoint.frames.root?.spans ?? [],
    cost: checkpoint.cost,
    startedAt,
    endedAt,
    durationMs: elapsedMs(startedAt, endedAt),
  };
}

async function loadCheckpoint(deps: StepDeps, executionId: string): Promise<Checkpoint> {
  const checkpoint = await deps.checkpoints.load(executionId);
  if (!checkpoint) throw new Error(`Checkpoint of execution ${executionId} is missing`);
  return checkpoint as Checkpoint;
}

async function firstCheckpoint(deps: StepDeps, state: ExecutionState): Promise<Checkpoint> {
  return startRun(
    {
      executionId: state.executionId,
      workflowId: state.workflowId,
      workspaceId: state.workspaceId,
      trigger: state.trigger,
      input: await inputOf(deps.checkpoints, state),
      graph: await graphOf(deps, state),
      startedAt: state.startedAt,
      ...(state.policy === undefined ? {} : { policy: state.policy }),
    },
    deps.engine.limits,
  );
}

export interface FinalizeDeps {
  logs: Pick<ExecutionLogStore, 'putLogEntry'>;
  /** Where the run's cost is added to its owner's usage. */
  usage: Pick<LimitsStore, 'addRunCost'>;
  checkpoints: CheckpointStore;
  /** Settles the job of an asynchronous run. */
  jobs: SettleDeps['jobs'];
  /** Which settled runs have their duration recorded (core/jobs); without it, every one. */
  recordsDurationOf?: SettleDeps['recordsDurationOf'];
  now: () => Date;
  /** Charged to every run, on top of its model costs. */
  baseChargePerRunInUsd: number;
  /** Where a draft run's graph is read, to keep it with the entry (drafts change; deployments do not). */
  drafts?: Pick<WorkflowStore, 'getWorkflow'>;
  /** The run counters of the metrics route (core/metrics). */
  metrics?: Pick<MetricsStore, 'recordRun'>;
  /** Where the run's completion event goes, for notifications (one small message; delivery happens elsewhere). */
  notifications?: Pick<NotificationQueue, 'publishEvent'>;
  /** The workspaces' runs in progress (core/limits/run-slots.ts): the run's slot is given back here. */
  slots?: Pick<RunSlotStore, 'remove'>;
}

export async function finalizeRun(deps: FinalizeDeps, state: ExecutionState): Promise<ExecutionAnswer> {
  const result = await runResultOf(deps, state);
  // A redelivered Finalize may find the input removed already; its entry was written the first time.
  const input = await inputOf(deps.checkpoints, state, { whenMissing: {} });
  const entry: ExecutionLogEntry = {
    id: logIdFor(state.executionId),
    workspaceId: state.workspaceId,
    workflowId: state.workflowId,
    executionId: state.executionId,
    level: result.success ? 'info' : 'error',
    trigger: state.trigger,
    startedAt: state.startedAt,
    endedAt: result.endedAt,
    totalDurationMs: elapsedMs(state.startedAt, result.endedAt),
    cost: addCharge(result.cost, deps.baseChargePerRunInUsd),
    files: filesIn(input, result.traceSpans, result.output),
    deploymentVersion: state.deploymentVersion,
    models: Object.keys(result.cost.models),
    executionData: {
      traceSpans: result.traceSpans,
      finalOutput: result.output,
      ...(result.error === undefined ? {} : { error: result.error }),
    },
    ...(await draftGraphOf(deps, state)),
    loggedAt: deps.now().toISOString(),
  };
  const firstWrite = await deps.logs.putLogEntry(entry);
  // Once the entry is written, the rest of what a run's end records is independent, and written at
  // once: a sync caller waits for Finalize. Each is safe to repeat when a failure redelivers it.
  await Promise.all([
    // Counted with the entry's first write only, so a redelivered Finalize does not count the run twice.
    firstWrite && deps.metrics ? recordRunMetrics(deps.metrics, entry) : undefined,
    recordRunCost(deps.usage, state, entry.cost.total),
    deps.slots ? releaseRunSlot({ slots: deps.slots }, state) : undefined,
    // A redelivered Finalize publishes the same event again; its deliveries are recorded once.
    deps.notifications?.publishEvent(completionEventOf(entry, deps.now().getTime(), state.userId)),
  ]);
  // The log entry settles an async run's job (core/jobs/service.ts); its duration is sampled.
  if (state.mode === 'async') await settleJob(deps, state, { durationInMs: entry.totalDurationMs });
  if (state.step?.status === 'done' && 'resultRef' in state.step.result) {
    await deps.checkpoints.delete(state.step.result.resultRef);
  }
  if (state.inputRef !== undefined) await deps.checkpoints.delete(state.inputRef);
  return executionAnswer(state, result, entry);
}

async function draftGraphOf(
  deps: FinalizeDeps,
  state: ExecutionState,
): Promise<Pick<ExecutionLogEntry, 'workflowState'>> {
  if (state.deploymentVersion !== draftVersion || !deps.drafts) return {};
  const workflow = await deps.drafts.getWorkflow(state.workflowId);
  // Kept with the log entry, which every reader of the workspace's logs may see: keys masked.
  return workflow ? { workflowState: maskModelKeys(workflow.state) } : {};
}

async function runResultOf(deps: FinalizeDeps, state: ExecutionState): Promise<RunResult> {
  if (state.failure || state.step?.status !== 'done') return failedResult(state, deps.now());
  const { result } = state.step;
  if (!('resultRef' in result)) return result;
  const stored = await deps.checkpoints.load(result.resultRef);
  if (!stored) throw new Error(`Result of execution ${state.executionId} is missing`);
  return stored as RunResult;
}

/** A step that crashed (or timed out) reaches Finalize through the state machine's Catch. */
function failedResult(state: ExecutionState, now: Date): RunResult {
  const endedAt = now.toISOString();
  return {
    success: false,
    output: undefined,
    error: failureMessage(state.failure),
    httpStatus: 500,
    responseHeaders: {},
    traceSpans: [],
    cost: { total: 0, tokens: { prompt: 0, completion: 0, total: 0 }, models: {} },
    startedAt: state.startedAt,
    endedAt,
    durationMs: elapsedMs(state.startedAt, endedAt),
  };
}

/** Lambda failures carry `{errorMessage, errorType}` as JSON text in `Cause`. */
export function failureMessage(failure: ExecutionState['failure']): string {
  if (failure?.Error === 'States.Timeout') return 'The run timed out';
  if (failure?.Cause) {
    try {
      const cause = JSON.parse(failure.Cause) as { errorMessage?: string };
      if (cause.errorMessage) return `The run failed: ${cause.errorMessage}`;
    } catch {
      return `The run failed: ${failure.Cause}`;
    }
  }
  return 'The run failed';
}

function elapsedMs(from: string, to: string): number {
  return Math.max(0, Date.parse(to) - Date.parse(from));
}

/** The status of a run its caller's data made fail (a response header it cannot send: core/engine). */
const refusedHttpStatus = 400;

function failureCodeOf(timedOut: boolean, refused: boolean): NonNullable<ExecutionAnswer['body']['code']> {
  if (timedOut) return 'TIMEOUT';
  return refused ? 'VALIDATION_ERROR' : 'EXECUTION_ERROR';
}

/** The answer a sync caller gets; its duration and cost are the log entry's, base charge included. */
export function executionAnswer(
  state: ExecutionRequest,
  result: RunResult,
  entry: Pick<ExecutionLogEntry, 'totalDurationMs' | 'cost'>,
): ExecutionAnswer {
  const totalDurationMs = entry.totalDurationMs;
  const timedOut = !result.success && result.httpStatus === timedOutHttpStatus;
  const refused = !result.success && result.httpStatus === refusedHttpStatus;
  return {
    httpStatus: result.success || timedOut || refused ? result.httpStatus : 500,
    headers: result.success ? result.responseHeaders : {},
    body: {
      success: result.success,
      ...(result.output === undefined ? {} : { output: result.output }),
      ...(result.error === undefined ? {} : { error: result.error }),
      ...(result.success ? {} : { code: failureCodeOf(timedOut, refused) }),
      metadata: {
        duration: totalDurationMs,
        executionId: state.executionId,
        startedAt: state.startedAt,
        endedAt: result.endedAt,
        cost: entry.cost,
      },
      traceSpans: result.traceSpans,
      logs: blockLogsOf(result.traceSpans),
      totalDuration: totalDurationMs,
    },
  };
}
