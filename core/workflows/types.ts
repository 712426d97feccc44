/** Workflows, their immutable deployments, and the port that stores them. */
import type { WorkflowGraph } from '../engine/types';

export interface WorkflowRecord {
  id: string;
  workspaceId: string;
  folderId: string | null;
  name: string;
  description: string;
  state: WorkflowGraph;
  /** Hash of `state`; compared with `deployedStateHash` to tell whether a redeploy is needed. */
  stateHash: string;
  isDeployed: boolean;
  deployedVersion?: number;
  deployedAt?: string;
  deployedStateHash?: string;
  /** Incremented on every write; writes are conditional on it so concurrent edits are not lost. */
  revision: number;
  createdAt: string;
  updatedAt: string;
}

/** An immutable snapshot of a workflow graph; runs and log entries point at one. */
export interface Deployment {
  workflowId: string;
  workspaceId: string;
  version: number;
  state: WorkflowGraph;
  stateHash: string;
  deployedAt: string;
  deployedBy: string;
}

/** Port. */
export interface WorkflowStore {
  /**
   * Creates (expectedRevision undefined: fails with ConflictError if it exists) or replaces the
   * workflow if its stored revision is `expectedRevision` (else ConflictError).
   */
  putWorkflow(workflow: WorkflowRecord, expectedRevision?: number): Promise<void>;
  getWorkflow(workflowId: string): Promise<WorkflowRecord | undefined>;
  listWorkflows(workspaceId: string): Promise<WorkflowRecord[]>;
  deleteWorkflow(workflowId: string): Promise<void>;
  /** Fails with ConflictError if that version exists already: deployments never change. */
  putDeployment(deployment: Deployment): Promise<void>;
  getDeployment(workflowId: string, version: number): Promise<Deployment | undefined>;
}
