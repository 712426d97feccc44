/**
 * Permission groups enforced: the warnings of saves and deploys in full, refused runs logged like any
 * failed run, drafts, child workflows, and who is restricted. Every restriction against every trigger
 * is in permission-triggers.test.ts.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DynamoExecutionLogStore } from '../../../adapters/dynamodb/execution-log-store';
import { block, edge, graphOf } from '../../../core/engine/builders';
import type { WorkflowGraph } from '../../../core/engine/types';
import { type Organization, organizationOf, setAccessControl } from '../../support/organizations';
import {
  deployedWorkflow,
  finishedJob,
  request,
  type Tenant,
  threeBlockGraph,
  useLocalService,
} from '../../support/service';
import { postArchive, simGreeting, simWorkspaceZip } from '../../support/sim-files';

const service = useLocalService();

/** The member is in a group that allows function blocks and the OpenAI provider only. */
let org: Organization;
let groupId: string;

beforeAll(async () => {
  setAccessControl(true);
  org = await organizationOf(service.get());
  const group = await org.owner.call('POST', `/api/organizations/${org.id}/permission-groups`, {
    name: 'Contractors',
    allowedModelProviders: ['openai'],
    allowedBlocks: ['function', 'agent', 'workflow'],
  });
  groupId = group.body.data.id;
  await org.owner.call('POST', `/api/organizations/${org.id}/permission-groups/${groupId}/members`, {
    userId: org.member.userId,
  });
});
beforeEach(() => setAccessControl(true));
afterAll(() => setAccessControl(false));

/** start → Shout (function) → Respond (response): the response block is what the group refuses. */
const refusedBlock =
  'Block "Respond" (response): block type "response" is not allowed by permission group "Contractors" (allowed: function, agent, workflow)';

function agentGraph(provider: string): WorkflowGraph {
  return graphOf(
    [
      block('start', 'start', 'Start', { inputFormat: [] }),
      block('ask', 'agent', 'Ask', { provider, model: 'claude-sonnet-4', userPrompt: 'hi' }),
    ],
    [edge('start', 'ask')],
  );
}

async function loggedError(executionId: string) {
  const entry = await DynamoExecutionLogStore.fromEnv().getLogEntryByExecutionId(executionId);
  return { level: entry?.level, error: entry?.executionData?.error };
}

describe('saving and deploying', () => {
  it('answers warnings naming the block and provider the saver’s group does not allow', async () => {
    // Prepare
    const member = org.member;

    // Act
    const created = await member.call('POST', '/api/workflows', {
      workspaceId: member.workspaceId,
      name: 'Ask',
      state: agentGraph('anthropic'),
    });
    const path = `/api/workflows/${created.body.data.id}`;
    const updated = await member.call('PUT', path, { state: threeBlockGraph() });
    const deployed = await member.call('POST', `${path}/deploy`);

    // Assess
    expect(created.status).toBe(201);
    expect(created.body.warnings).toEqual([
      {
        blockId: 'ask',
        blockName: 'Ask',
        blockType: 'agent',
        kind: 'provider',
        provider: 'anthropic',
        message:
          'Block "Ask" (agent) uses model provider "anthropic", which permission group "Contractors" does not allow (allowed: openai)',
      },
    ]);
    expect(updated.status).toBe(200);
    expect(updated.body.warnings.map((w: { message: string }) => w.message)).toEqual([refusedBlock]);
    expect(deployed.status).toBe(200);
    expect(deployed.body.data.isDeployed).toBe(true);
    expect(deployed.body.warnings.map((w: { blockName: string }) => w.blockName)).toEqual(['Respond']);
  });

  it("warns of the refused blocks of every workflow imported, one file or a Sim archive's", async () => {
    // Prepare
    const member = org.member;
    const refusedResponse =
      'Block "Response" (response): block type "response" is not allowed by permission group "Contractors" (allowed: function, agent, workflow)';
    const zip = simWorkspaceZip([
      { id: '7c2d4a10-1b2c-4d3e-8f90-0a1b2c3d4e5f', file: simGreeting('Greeter') },
      { id: '0b1e2f30-4a5b-4c6d-9e8f-102132435465', file: simGreeting('Welcomer') },
    ]);

    // Act
    const single = await member.call('POST', '/api/workflows/import', {
      workspaceId: member.workspaceId,
      workflow: simGreeting('Greeter'),
    });
    const archive = await postArchive(
      service.get().url,
      member.apiKey,
      { workspaceId: member.workspaceId },
      zip,
    );

    // Assess
    expect(single.status).toBe(201);
    expect(single.body.data.warnings.map((w: { message: string }) => w.message)).toEqual([refusedResponse]);
    expect(archive.status).toBe(201);
    const workflows = archive.body.data.workflows as {
      sourceName: string;
      warnings: { message: string }[];
    }[];
    expect(workflows.map((w) => [w.sourceName, w.warnings.map((warning) => warning.message)])).toEqual([
      ['Greeter', [refusedResponse]],
      ['Welcomer', [refusedResponse]],
    ]);
  });

  it('answers no warnings to a user in no group, nor with access control off', async () => {
    const free = await org.admin.call('POST', '/api/workflows', {
      workspaceId: org.admin.workspaceId,
      name: 'Ask',
      state: agentGraph('anthropic'),
    });
    setAccessControl(false);
    const off = await org.member.call('POST', '/api/workflows', {
      workspaceId: org.member.workspaceId,
      name: 'Ask',
      state: agentGraph('anthropic'),
    });
    expect(free.status).toBe(201);
    expect(free.body.warnings).toBeUndefined();
    expect(off.status).toBe(201);
    expect(off.body.warnings).toBeUndefined();
  });
});

describe('runs of a group member', () => {
  let workflowId: string;
  beforeAll(async () => {
    workflowId = await deployedWorkflow(org.member, threeBlockGraph());
  });
  const execute = (tenant: Tenant, headers: Record<string, string> = {}, body: object = { name: 'ada' }) =>
    request(service.get().url, 'POST', `/api/workflows/${workflowId}/execute`, {
      headers: { 'x-api-key': tenant.apiKey, ...headers },
      body,
    });

  it('API sync: fails with EXECUTION_ERROR naming the block, logged as a failed run', async () => {
    const answer = await execute(org.member);
    expect(answer.status).toBe(500);
    expect(answer.body).toMatchObject({ success: false, code: 'EXECUTION_ERROR', error: refusedBlock });
    expect(await loggedError(answer.body.metadata.executionId)).toEqual({
      level: 'error',
      error: refusedBlock,
    });
  });

  it('API async: the job fails naming the block', async () => {
    const accepted = await execute(org.member, { 'x-execution-mode': 'async' });
    const job = await finishedJob(org.member, accepted.body.taskId);
    expect(accepted.status).toBe(202);
    expect(job.body).toMatchObject({ status: 'failed', success: true, error: refusedBlock });
    expect((await loggedError(accepted.body.taskId)).level).toBe('error');
  });

  it('manual run of the draft: fails naming the block', async () => {
    const draft = await org.member.call('POST', `/api/workflows/${workflowId}/run`, {
      input: { name: 'ada' },
      draft: true,
    });
    expect(draft.status).toBe(500);
    expect(draft.body.error).toBe(refusedBlock);
  });

  it('child workflow: a parent the group allows fails at a child holding a block it does not', async () => {
    // Prepare: the child is the refused workflow; the parent only calls it
    const parent = graphOf(
      [
        block('start', 'start', 'Start', { inputFormat: [] }),
        block('call', 'workflow', 'Call child', { workflowId, input: { name: 'ada' } }),
      ],
      [edge('start', 'call')],
    );
    const parentId = await deployedWorkflow(org.member, parent);

    // Act
    const answer = await org.member.call('POST', `/api/workflows/${parentId}/execute`, {});

    // Assess
    expect(answer.status).toBe(500);
    expect(answer.body.error).toBe(`Child workflow ${workflowId}: ${refusedBlock}`);
  });

  it('runs for users in no group, for the member once out of the group, and for everyone with access control off', async () => {
    // Prepare: the admin, in no group, runs a workflow of their own
    const adminsId = await deployedWorkflow(org.admin, threeBlockGraph());

    // Act
    const free = await org.admin.call('POST', `/api/workflows/${adminsId}/execute`, { name: 'ada' });
    setAccessControl(false);
    const off = await execute(org.member);
    setAccessControl(true);
    const groupPath = `/api/organizations/${org.id}/permission-groups/${groupId}`;
    await org.owner.call('DELETE', `${groupPath}/members/${org.member.userId}`);
    const outOfGroup = await execute(org.member);
    await org.owner.call('POST', `${groupPath}/members`, { userId: org.member.userId });
    const backIn = await execute(org.member);

    // Assess
    expect(free.status).toBe(200);
    expect(off.status).toBe(200);
    expect(off.body.output).toEqual({ shouted: 'ADA' });
    expect(outOfGroup.status).toBe(200);
    expect(backIn.status).toBe(500);
  });
});
