/**
 * The run use cases behind the state machine: prepare a run (validate, pick the deployment),
 * Step (run blocks from the checkpoint), Finalize (write the log entry, shape the answer).
 */
import { randomUUID } from 'node:crypto';
import { validateStartInput } from '../engine/input';
import { runStep, startRun, type Checkpoint } from '../engine/run';
import { addCharge } from '../engine/cost';
import type { EngineDeps, RunResult, WorkflowGraph } from '../engine/types';
import { redactSecrets } from '../environment/redact';
import { ForbiddenError } from '../errors';
import type { Principal } from '../identity/service';
import type { IdentityStore } from '../identity/types';
import type {
  ExecutionAnswer,
  ExecutionRequest,
  ExecutionState,
  StepOutcome,
  Trigger,
} from './types';
import { loadWorkflow } from '../workflows/service';
import type { WorkflowStore } from '../workflows/types';
import { type CheckpointStore, type ExecutionLogEntry, type ExecutionLogStore, logIdFor } from './log';

/** Results above this travel by reference: Step Functions caps a state's payload at 256 KB. */
export const inlineResultLimitInBytes = 200 * 1024;

export interface PrepareDeps {
  identity: IdentityStore;
  workflows: Pick<WorkflowStore, 'getWorkflow' | 'getDeployment'>;
  now: () => Date;
}

export async function prepareRun(
  deps: PrepareDeps,
  principal: Principal,
  workflowId: string,
  body: Record<string, unknown>,
  options: { trigger: Trigger; mode: 'sync' | 'async' },
): Promise<ExecutionRequest> {
  const workflow = await loadWorkflow(deps, principal, workflowId, 'write');
  if (!workflow.isDeployed || workflow.deployedVersion === undefined) {
    throw new ForbiddenError('Workflow is not deployed: deploy it before running it');
  }
  const deployment = await deps.workflows.getDeployment(workflowId, workflow.deployedVersion);
  if (!deployment)
    throw new Error(`Deployment ${workflow.deployedVersion} of workflow ${workflowId} is missing`);
  return {
    executionId: randomUUID(),
    workflowId,
    workspaceId: workflow.workspaceId,
    userId: principal.user.id,
    deploymentVersion: deployment.version,
    trigger: options.trigger,
    input: validateStartInput(deployment.state, body),
    startedAt: deps.now().toISOString(),
    mode: options.mode,
  };
}

export interface StepDeps {
  deployments: Pick<WorkflowStore, 'getDeployment'>;
  checkpoints: CheckpointStore;
  engine: EngineDeps;
  /** How long one step may run blocks before it checkpoints and hands back to the state machine. */
  budgetInMs: number;
  /** The workspace's decrypted environment; read per step and never checkpointed. */
  environmentOf?: (workspaceId: string) => Promise<Record<string, string>>;
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

async function environmentFor(deps: StepDeps, state: ExecutionState): Promise<Record<string, string>> {
  if (!deps.environmentOf) return {};
  const deployment = await deps.deployments.getDeployment(state.workflowId, state.deploymentVersion);
  if (!deployment || !usesEnvironment(deployment.state)) return {};
  return deps.environmentOf(state.workspaceId);
}

const resultKey = (executionId: string) => `${executionId}#result`;

export async function executeStep(deps: StepDeps, state: ExecutionState): Promise<StepOutcome> {
  const resuming = state.step !== undefined && state.step.status !== 'done';
  const checkpoint = resuming
    ? await loadCheckpoint(deps, state.executionId)
    : await firstCheckpoint(deps, state);
  const environment = await environmentFor(deps, state);
  const outcome = await runStep(checkpoint, deps.engine, { budgetInMs: deps.budgetInMs, environment });
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
  const result = redactSecrets(outcome.result, Object.values(environment)) as RunResult;
  const json = JSON.stringify(result);
  if (Buffer.byteLength(json) <= inlineResultLimitInBytes) return { status: 'done', result };
  await deps.checkpoints.saveJson(resultKey(state.executionId), json);
  return { status: 'done', result: { resultRef: resultKey(state.executionId) } };
}

async function loadCheckpoint(deps: StepDeps, executionId: string): Promise<Checkpoint> {
  const checkpoint = await deps.checkpoints.load(executionId);
  if (!checkpoint) throw new Error(`Checkpoint of execution ${executionId} is missing`);
  return checkpoint as Checkpoint;
}

async function firstCheckpoint(deps: StepDeps, state: ExecutionState): Promise<Checkpoint> {
  const deployment = await deps.deployments.getDeployment(state.workflowId, state.deploymentVersion);
  if (!deployment)
    throw new Error(`Deployment ${state.deploymentVersion} of workflow ${state.workflowId} is missing`);
  return startRun(
    {
      executionId: state.executionId,
      workflowId: state.workflowId,
      workspaceId: state.workspaceId,
      trigger: state.trigger,
      input: state.input,
      graph: deployment.state,
      startedAt: state.startedAt,
    },
    deps.engine.limits,
  );
}

export interface FinalizeDeps {
  logs: ExecutionLogStore;
  checkpoints: CheckpointStore;
  now: () => Date;
  /** Charged to every run, on top of its model costs. */
  baseChargePerRunInUsd: number;
}

export async function finalizeRun(deps: FinalizeDeps, state: ExecutionState): Promise<ExecutionAnswer> {
  const result = await runResultOf(deps, state);
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
    files: null,
    deploymentVersion: state.deploymentVersion,
    models: Object.keys(result.cost.models),
    executionData: {
      traceSpans: result.traceSpans,
      finalOutput: result.output,
      ...(result.error === undefined ? {} : { error: result.error }),
    },
  };
  await deps.logs.putLogEntry(entry);
  if (state.step?.status === 'done' && 'resultRef' in state.step.result) {
    await deps.checkpoints.delete(state.step.result.resultRef);
  }
  return executionAnswer(state, result, entry);
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

/** The answer a sync caller gets; its duration and cost are the log entry's, base charge included. */
export function executionAnswer(
  state: ExecutionRequest,
  result: RunResult,
  entry: Pick<ExecutionLogEntry, 'totalDurationMs' | 'cost'>,
): ExecutionAnswer {
  const totalDurationMs = entry.totalDurationMs;
  return {
    httpStatus: result.success ? result.httpStatus : 500,
    headers: result.success ? result.responseHeaders : {},
    body: {
      success: result.success,
      ...(result.output === undefined ? {} : { output: result.output }),
      ...(result.error === undefined ? {} : { error: result.error }),
      ...(result.success ? {} : { code: 'EXECUTION_ERROR' as const }),
      metadata: {
        duration: totalDurationMs,
        executionId: state.executionId,
        startedAt: state.startedAt,
        endedAt: result.endedAt,
        cost: entry.cost,
      },
      traceSpans: result.traceSpans,
      totalDuration: totalDurationMs,
    },
  };
}
