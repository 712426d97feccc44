import { describe, expect, it } from 'vitest';
import { graphOf, block } from '../../../core/engine/builders';
import { deployedWorkflowLoader } from '../../../core/workflows/loader';
import type { Deployment, WorkflowRecord } from '../../../core/workflows/types';

const deployedGraph = graphOf([block('start', 'start', 'Start')]);
const draftGraph = graphOf([block('start', 'start', 'Start'), block('f', 'function', 'Draft')]);

function record(overrides: Partial<WorkflowRecord>): WorkflowRecord {
  return {
    id: 'wf_child',
    workspaceId: 'ws_a',
    folderId: null,
    name: 'Child',
    description: '',
    state: draftGraph,
    stateHash: 'draft',
    isDeployed: true,
    deployedVersion: 3,
    revision: 5,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

function loaderWith(workflow: WorkflowRecord | undefined) {
  const deployment: Deployment = {
    workflowId: 'wf_child',
    workspaceId: 'ws_a',
    version: 3,
    state: deployedGraph,
    stateHash: 'deployed',
    deployedAt: '2026-01-01T00:00:00.000Z',
    deployedBy: 'usr_1',
  };
  return deployedWorkflowLoader({
    getWorkflow: async () => workflow,
    getDeployment: async (_id, version) => (version === 3 ? deployment : undefined),
  });
}

describe('deployedWorkflowLoader', () => {
  it('gives the deployed snapshot, not the draft', async () => {
    expect(await loaderWith(record({})).loadDeployed('ws_a', 'wf_child')).toEqual(deployedGraph);
  });

  it('gives nothing for a workflow of another workspace', async () => {
    expect(await loaderWith(record({})).loadDeployed('ws_b', 'wf_child')).toBeUndefined();
  });

  it('gives nothing for a workflow that is not deployed', async () => {
    expect(await loaderWith(record({ isDeployed: false })).loadDeployed('ws_a', 'wf_child')).toBeUndefined();
  });

  it('gives nothing for a workflow that does not exist', async () => {
    expect(await loaderWith(undefined).loadDeployed('ws_a', 'wf_child')).toBeUndefined();
  });
});
