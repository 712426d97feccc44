/**
 * Preparing a run, before the state machine starts it: the caller's access, the deployed graph (or
 * the draft), the start block's input and its files stored. Apart from core/runs/service.ts, so
 * the routes that start runs carry none of the engine that Step runs.
 */
import { randomUUID } from 'node:crypto';
import { startInputFormat, validateStartInput } from '../engine/input';
import type { WorkflowGraph } from '../engine/types';
import { ForbiddenError, ValidationError } from '../errors';
import { type FileDeps, ingestFileInputs } from '../files/service';
import type { Principal } from '../identity/service';
import type { IdentityStore, User } from '../identity/types';
import type { AccessPolicy } from '../permissions/types';
import { loadWorkflow } from '../workflows/service';
import type { WorkflowRecord, WorkflowStore } from '../workflows/types';
import { draftVersion } from './draft';
import type { ExecutionRequest, Trigger } from './types';

export interface PrepareDeps {
  identity: IdentityStore;
  workflows: Pick<WorkflowStore, 'getWorkflow' | 'getDeployment'>;
  now: () => Date;
  /** How long a sync run may take in all; a sync run whose graph waits longer is refused. */
  syncBudgetInMs?: number;
  /** Where file inputs are stored; without it, a run given files is refused. */
  files?: FileDeps;
  /**
   * The acting user's permission group restrictions (core/permissions); the run carries them, and
   * the engine refuses what they do not allow. Without it, or when it answers none: full access.
   */
  policyOf?: (user: User) => Promise<AccessPolicy | undefined>;
}

export async function prepareRun(
  deps: PrepareDeps,
  principal: Principal,
  workflowId: string,
  body: Record<string, unknown>,
  options: {
    trigger: Trigger;
    mode: 'sync' | 'async';
    draft?: boolean;
    /** Who pays, and what was counted already when the request was admitted (core/limits). */
    usage?: { owner: string; chargedUsd: number };
  },
): Promise<ExecutionRequest> {
  const workflow = await loadWorkflow(deps, principal, workflowId, 'write');
  const graph = options.draft ? workflow.state : await deployedGraph(deps, workflow);
  if (options.mode === 'sync' && deps.syncBudgetInMs !== undefined) {
    refuseWaitsBeyond(graph, deps.syncBudgetInMs);
  }
  const executionId = randomUUID();
  const input = await withStoredFiles(deps, graph, validateStartInput(graph, body), {
    workspaceId: workflow.workspaceId,
    executionId,
  });
  const policy = await deps.policyOf?.(principal.user);
  return {
    executionId,
    workflowId,
    workspaceId: workflow.workspaceId,
    userId: principal.user.id,
    // A draft run has no deployment: its graph is read from the workflow when it starts.
    deploymentVersion: options.draft ? draftVersion : (workflow.deployedVersion as number),
    trigger: options.trigger,
    input,
    startedAt: deps.now().toISOString(),
    mode: options.mode,
    ...(options.usage === undefined
      ? {}
      : { usageOwner: options.usage.owner, chargedUsd: options.usage.chargedUsd }),
    ...(policy === undefined ? {} : { policy }),
  };
}

/** File inputs are stored before the run starts, so the run, its checkpoints and its log carry file objects. */
async function withStoredFiles(
  deps: PrepareDeps,
  graph: WorkflowGraph,
  input: Record<string, unknown>,
  scope: { workspaceId: string; executionId: string },
): Promise<Record<string, unknown>> {
  const fields = startInputFormat(graph).filter((field) => field.type === 'files');
  if (!fields.some((field) => input[field.name] !== undefined)) return input;
  if (!deps.files) throw new Error('File inputs need a file store, and none is configured');
  return ingestFileInputs(deps.files, fields, input, scope);
}

async function deployedGraph(deps: PrepareDeps, workflow: WorkflowRecord): Promise<WorkflowGraph> {
  if (!workflow.isDeployed || workflow.deployedVersion === undefined) {
    throw new ForbiddenError('Workflow is not deployed: deploy it before running it');
  }
  const deployment = await deps.workflows.getDeployment(workflow.id, workflow.deployedVersion);
  if (!deployment)
    throw new Error(`Deployment ${workflow.deployedVersion} of workflow ${workflow.id} is missing`);
  return deployment.state;
}

/**
 * A sync caller cannot be answered after a wait longer than the sync budget, so such a graph is
 * refused before it runs. Only literal durations are known here; one taken from a reference is
 * caught by the budget while the run goes.
 */
function refuseWaitsBeyond(graph: WorkflowGraph, budgetInMs: number): void {
  for (const block of Object.values(graph.blocks)) {
    if (block.type !== 'wait' || block.enabled === false) continue;
    const duration = Number(block.config.durationMs);
    if (Number.isFinite(duration) && duration > budgetInMs) {
      throw new ValidationError(
        `Wait block "${block.name}" waits ${Math.round(duration / 1000)} s, longer than the ${Math.round(budgetInMs / 1000)} s a synchronous run may take: run it asynchronously (header X-Execution-Mode: async)`,
        [{ path: `blocks.${block.id}.config.durationMs`, message: 'Longer than the synchronous run budget' }],
      );
    }
  }
}
