/** Workflow use cases: create, read, update, delete, deploy, undeploy, status. */
import { validateGraph } from '../engine/graph';
import type { WorkflowGraph } from '../engine/types';
import { NotFoundError } from '../errors';
import { contentHash } from '../hash';
import { newId } from '../ids';
import { requireWorkspaceAccess } from '../identity/access';
import type { Principal } from '../identity/service';
import type { IdentityStore, WorkspacePermission } from '../identity/types';
import { keepMaskedModelKeys, maskModelKeys } from './model-keys';
import type { Deployment, WorkflowRecord, WorkflowStore } from './types';

export interface WorkflowDeps {
  identity: IdentityStore;
  workflows: WorkflowStore;
  now: () => Date;
}

export interface WorkflowView extends Omit<WorkflowRecord, 'stateHash' | 'deployedStateHash' | 'revision'> {
  needsRedeployment: boolean;
}

export interface WorkflowStatus {
  isDeployed: boolean;
  deployedAt?: string;
  needsRedeployment: boolean;
}

export function workflowStatus(record: WorkflowRecord): WorkflowStatus {
  return {
    isDeployed: record.isDeployed,
    ...(record.isDeployed && record.deployedAt ? { deployedAt: record.deployedAt } : {}),
    needsRedeployment: record.isDeployed && record.stateHash !== record.deployedStateHash,
  };
}

/** A workflow as its readers see it: model keys written into the graph are masked (./model-keys.ts). */
export function workflowView(record: WorkflowRecord): WorkflowView {
  const { stateHash: _s, deployedStateHash: _d, revision: _r, state, ...rest } = record;
  return {
    ...rest,
    state: maskModelKeys(state),
    needsRedeployment: workflowStatus(record).needsRedeployment,
  };
}

export type WorkflowSummary = Omit<WorkflowView, 'state'>;

/** Listings leave the graph out: it can be large, and one workflow's read gives it. */
export function workflowSummary(record: WorkflowRecord): WorkflowSummary {
  const { state: _state, ...summary } = workflowView(record);
  return summary;
}

/** A new workflow without a graph starts with a lone Start block. */
export function emptyGraph(): WorkflowGraph {
  return {
    blocks: {
      start: {
        id: 'start',
        type: 'start',
        name: 'Start',
        parentId: null,
        enabled: true,
        config: { inputFormat: [] },
      },
    },
    edges: [],
    loops: {},
    parallels: {},
  };
}

/** Loads a workflow the principal may act on; another tenant's workflow is a plain 404. */
export async function loadWorkflow(
  deps: { identity: IdentityStore; workflows: Pick<WorkflowStore, 'getWorkflow'> },
  principal: Principal,
  workflowId: string,
  needed: WorkspacePermission,
): Promise<WorkflowRecord> {
  const notFound = `Workflow ${workflowId} not found`;
  const record = await deps.workflows.getWorkflow(workflowId);
  if (!record) throw new NotFoundError(notFound);
  await requireWorkspaceAccess(deps.identity, principal.user.id, record.workspaceId, needed, notFound);
  return record;
}

export async function createWorkflow(
  deps: WorkflowDeps,
  principal: Principal,
  input: {
    workspaceId: string;
    name: string;
    description?: string;
    folderId?: string | null;
    state?: WorkflowGraph;
  },
): Promise<WorkflowView> {
  await requireWorkspaceAccess(deps.identity, principal.user.id, input.workspaceId, 'write');
  return workflowView(await insertWorkflow(deps, input));
}

/**
 * Creation without a principal: the admin import acts on the operator's authority. An `id` given
 * in advance lets an archive's workflows point at one another before they are stored.
 */
export async function insertWorkflow(
  deps: WorkflowDeps,
  input: {
    id?: string;
    workspaceId: string;
    name: string;
    description?: string;
    folderId?: string | null;
    state?: WorkflowGraph;
  },
): Promise<WorkflowRecord> {
  const state = validateGraph(input.state ?? emptyGraph());
  const now = deps.now().toISOString();
  const record: WorkflowRecord = {
    id: input.id ?? newId('wf'),
    workspaceId: input.workspaceId,
    folderId: input.folderId ?? null,
    name: input.name,
    description: input.description ?? '',
    state,
    stateHash: contentHash(state),
    isDeployed: false,
    revision: 1,
    createdAt: now,
    updatedAt: now,
  };
  await deps.workflows.putWorkflow(record);
  return record;
}

export async function listWorkflows(
  deps: WorkflowDeps,
  principal: Principal,
  workspaceId: string,
): Promise<WorkflowSummary[]> {
  await requireWorkspaceAccess(deps.identity, principal.user.id, workspaceId, 'read');
  return (await deps.workflows.listWorkflows(workspaceId)).map(workflowSummary);
}

export async function getWorkflow(
  deps: WorkflowDeps,
  principal: Principal,
  workflowId: string,
): Promise<WorkflowView> {
  return workflowView(await loadWorkflow(deps, principal, workflowId, 'read'));
}

export async function updateWorkflow(
  deps: WorkflowDeps,
  principal: Principal,
  workflowId: string,
  patch: { name?: string; description?: string; folderId?: string | null; state?: WorkflowGraph },
): Promise<WorkflowView> {
  const current = await loadWorkflow(deps, principal, workflowId, 'write');
  const state = patch.state ? validateGraph(keepMaskedModelKeys(patch.state, current.state)) : current.state;
  const next: WorkflowRecord = {
    ...current,
    name: patch.name ?? current.name,
    description: patch.description ?? current.description,
    folderId: patch.folderId === undefined ? current.folderId : patch.folderId,
    state,
    stateHash: contentHash(state),
    revision: current.revision + 1,
    updatedAt: deps.now().toISOString(),
  };
  await deps.workflows.putWorkflow(next, current.revision);
  return workflowView(next);
}

export async function deleteWorkflow(
  deps: WorkflowDeps,
  principal: Principal,
  workflowId: string,
): Promise<WorkflowSummary> {
  const current = await loadWorkflow(deps, principal, workflowId, 'write');
  await deps.workflows.deleteWorkflow(workflowId);
  return workflowSummary(current);
}

export async function deployWorkflow(
  deps: WorkflowDeps,
  principal: Principal,
  workflowId: string,
): Promise<WorkflowStatus> {
  const current = await loadWorkflow(deps, principal, workflowId, 'write');
  return workflowStatus(await deployRecord(deps, current, principal.user.id));
}

/** Stores the current graph as the next immutable deployment and points the workflow at it. */
export async function deployRecord(
  deps: WorkflowDeps,
  current: WorkflowRecord,
  deployedBy: string,
): Promise<WorkflowRecord> {
  const deployedAt = deps.now().toISOString();
  const deployment: Deployment = {
    workflowId: current.id,
    workspaceId: current.workspaceId,
    version: (current.deployedVersion ?? 0) + 1,
    state: current.state,
    stateHash: current.stateHash,
    deployedAt,
    deployedBy,
  };
  await deps.workflows.putDeployment(deployment);
  const next: WorkflowRecord = {
    ...current,
    isDeployed: true,
    deployedVersion: deployment.version,
    deployedAt,
    deployedStateHash: current.stateHash,
    revision: current.revision + 1,
    updatedAt: deployedAt,
  };
  await deps.workflows.putWorkflow(next, current.revision);
  return next;
}

export async function undeployWorkflow(
  deps: WorkflowDeps,
  principal: Principal,
  workflowId: string,
): Promise<WorkflowStatus> {
  const current = await loadWorkflow(deps, principal, workflowId, 'write');
  if (!current.isDeployed) return workflowStatus(current);
  const next: WorkflowRecord = {
    ...current,
    isDeployed: false,
    revision: current.revision + 1,
    updatedAt: deps.now().toISOString(),
  };
  await deps.workflows.putWorkflow(next, current.revision);
  return workflowStatus(next);
}

export async function getWorkflowStatus(
  deps: WorkflowDeps,
  principal: Principal,
  workflowId: string,
): Promise<WorkflowStatus> {
  return workflowStatus(await loadWorkflow(deps, principal, workflowId, 'read'));
}
