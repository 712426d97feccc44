/** In-memory stand-ins for the form service tests: the form store and workflows with deployments. */
import type { WorkflowGraph } from '../../../core/engine/types';
import type { FormDeps } from '../../../core/forms/service';
import type { FormRecord, FormStore } from '../../../core/forms/types';
import type { Deployment, WorkflowRecord, WorkflowStore } from '../../../core/workflows/types';
import { People } from '../webhooks/fakes';

/** Behaves as the DynamoDB store does: one form per identifier, changes only over what was read. */
export class MemoryFormStore implements FormStore {
  readonly byIdentifier = new Map<string, FormRecord>();

  async createForm(record: FormRecord) {
    if (this.byIdentifier.has(record.identifier)) return false;
    this.byIdentifier.set(record.identifier, structuredClone(record));
    return true;
  }
  async getFormByIdentifier(identifier: string) {
    return structuredClone(this.byIdentifier.get(identifier));
  }
  async getForm(formId: string) {
    return structuredClone([...this.byIdentifier.values()].find((form) => form.id === formId));
  }
  async listForms(workspaceId: string) {
    return [...this.byIdentifier.values()].filter((form) => form.workspaceId === workspaceId);
  }
  async listWorkflowForms(workflowId: string) {
    return [...this.byIdentifier.values()].filter((form) => form.workflowId === workflowId);
  }
  async replaceForm(previous: FormRecord, next: FormRecord) {
    const holder = this.byIdentifier.get(next.identifier);
    const sameSpot = previous.identifier === next.identifier;
    if (sameSpot ? holder?.id !== previous.id || holder.updatedAt !== previous.updatedAt : holder)
      return false;
    this.byIdentifier.delete(previous.identifier);
    this.byIdentifier.set(next.identifier, structuredClone(next));
    return true;
  }
  async deleteForm(record: FormRecord) {
    if (this.byIdentifier.get(record.identifier)?.id !== record.id) return false;
    return this.byIdentifier.delete(record.identifier);
  }
}

export function graphWith(inputFormat: unknown[]): WorkflowGraph {
  return {
    blocks: {
      start: {
        id: 'start',
        type: 'start',
        name: 'Start',
        parentId: null,
        enabled: true,
        config: { inputFormat },
      },
    },
    edges: [],
    loops: {},
    parallels: {},
  } as WorkflowGraph;
}

export class MemoryWorkflowStore {
  readonly workflows = new Map<string, WorkflowRecord>();
  readonly deployments = new Map<string, Deployment>();

  add(id: string, workspaceId: string, graph: WorkflowGraph, deployed = true): this {
    const record: WorkflowRecord = {
      id,
      workspaceId,
      folderId: null,
      name: 'Flow',
      description: '',
      state: graph,
      stateHash: 'hash',
      isDeployed: deployed,
      ...(deployed ? { deployedVersion: 1, deployedStateHash: 'hash' } : {}),
      revision: 1,
      createdAt: '2030-01-01T00:00:00.000Z',
      updatedAt: '2030-01-01T00:00:00.000Z',
    };
    this.workflows.set(id, record);
    if (deployed)
      this.putDeployment({
        workflowId: id,
        workspaceId,
        version: 1,
        state: graph,
        stateHash: 'hash',
        deployedAt: '',
        deployedBy: '',
      });
    return this;
  }

  async getWorkflow(workflowId: string) {
    return structuredClone(this.workflows.get(workflowId));
  }
  async putWorkflow(record: WorkflowRecord) {
    this.workflows.set(record.id, structuredClone(record));
  }
  async putDeployment(deployment: Deployment) {
    this.deployments.set(`${deployment.workflowId}#${deployment.version}`, structuredClone(deployment));
  }
  async getDeployment(workflowId: string, version: number) {
    return structuredClone(this.deployments.get(`${workflowId}#${version}`));
  }
}

export function formFixture() {
  const forms = new MemoryFormStore();
  const workflows = new MemoryWorkflowStore()
    .add('wf_1', 'ws_1', graphWith([{ name: 'name', type: 'string', required: true }]))
    .add('wf_draft', 'ws_1', graphWith([{ name: 'name', type: 'string' }]), false)
    .add('wf_empty', 'ws_1', graphWith([]));
  const people = new People().member('ws_1', 'usr_writer', 'write').member('ws_1', 'usr_reader', 'read');
  const deps: FormDeps = {
    identity: people.store,
    workflows: workflows as unknown as WorkflowStore,
    forms,
    now: () => new Date(),
  };
  return { deps, forms, workflows, people };
}
