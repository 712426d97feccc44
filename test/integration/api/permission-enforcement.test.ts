/**
 * Permission groups enforced: warnings when a member saves or deploys what their group does not
 * allow, and a refused run for every trigger, logged like any failed run; nothing with the switch off.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { sqsClient } from '../../../adapters/aws/clients';
import { DynamoExecutionLogStore } from '../../../adapters/dynamodb/execution-log-store';
import { SqsJobQueue } from '../../../adapters/sqs/job-queue';
import { block, edge, graphOf } from '../../../core/engine/builders';
import type { WorkflowGraph } from '../../../core/engine/types';
import { fireExecutionId } from '../../../core/schedules/service';
import { formOf, submit } from '../../support/forms';
import { type Organization, organizationOf, setAccessControl } from '../../support/organizations';
import {
  deployedWorkflow,
  finishedJob,
  request,
  type Tenant,
  threeBlockGraph,
  useLocalService,
} from '../../support/service';

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
      block('ask', 'agent', 'Ask', { provider, model: 'claude-sonnet-4', userPrompt: 'hi', apiKey: 'k' }),
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
    expect(job.body).toMatchObject({ status: 'failed', success: false, error: refusedBlock });
    expect((await loggedError(accepted.body.taskId)).level).toBe('error');
  });

  it('API stream: sends the error frame naming the block, then done', async () => {
    const response = await fetch(`${service.get().url}/api/workflows/${workflowId}/execute`, {
      method: 'POST',
      headers: { 'x-api-key': org.member.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'ada', stream: true }),
    });
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(text).toContain(`data: ${JSON.stringify({ event: 'error', error: refusedBlock })}\n\n`);
    expect(text).toContain('"event":"done","success":false');
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
  });

  it('manual run: fails naming the block, also for the draft', async () => {
    const deployed = await org.member.call('POST', `/api/workflows/${workflowId}/run`, {
      input: { name: 'ada' },
    });
    const draft = await org.member.call('POST', `/api/workflows/${workflowId}/run`, {
      input: { name: 'ada' },
      draft: true,
    });
    expect(deployed.status).toBe(500);
    expect(deployed.body.error).toBe(refusedBlock);
    expect(draft.status).toBe(500);
    expect(draft.body.error).toBe(refusedBlock);
  });

  it('webhook trigger: the run it starts fails naming the block', async () => {
    const webhook = await org.member.call('POST', `/api/workflows/${workflowId}/webhooks`, {});
    const accepted = await request(
      service.get().url,
      'POST',
      `/api/webhooks/trigger/${webhook.body.data.path}`,
      {
        body: { name: 'ada' },
      },
    );
    const job = await finishedJob(org.member, accepted.body.taskId);
    expect(accepted.status).toBe(202);
    expect(job.body).toMatchObject({ status: 'failed', error: refusedBlock });
  });

  it('schedule: the run a fire starts fails naming the block', async () => {
    // Prepare
    await org.member.call('PUT', `/api/workflows/${workflowId}/schedule`, {
      cron: '0 9 * * *',
      input: { name: 'ada' },
    });
    const scheduledTime = '2031-01-01T09:00:00.000Z';
    const queue = new SqsJobQueue({ client: sqsClient(), queueUrl: process.env.JOBS_QUEUE_URL as string });

    // Act
    await queue.send({ kind: 'schedule', workflowId, scheduledTime });
    const taskId = fireExecutionId(workflowId, scheduledTime);
    // The job exists once the worker has taken the fire from the queue.
    const job = await vi.waitFor(
      async () => {
        const answer = await finishedJob(org.member, taskId);
        expect(answer.status).toBe(200);
        return answer;
      },
      { timeout: 10_000, interval: 50 },
    );

    // Assess
    expect(job.body).toMatchObject({ status: 'failed', error: refusedBlock });
    expect(await loggedError(taskId)).toEqual({ level: 'error', error: refusedBlock });
    await org.member.call('DELETE', `/api/workflows/${workflowId}/schedule`);
  });

  it('form: the run a submission starts fails naming the block', async () => {
    const form = await formOf(org.member, workflowId);
    const submitted = await submit(service.get().url, form.identifier, { formData: { name: 'ada' } });
    const job = await finishedJob(org.member, submitted.body.data.executionId);
    expect(submitted.status).toBe(200);
    expect(job.body).toMatchObject({ status: 'failed', error: refusedBlock });
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

  it('model provider: an agent on a provider the group does not allow fails before any call', async () => {
    const id = await deployedWorkflow(org.member, agentGraph('anthropic'));
    const answer = await org.member.call('POST', `/api/workflows/${id}/execute`, {});
    expect(answer.status).toBe(500);
    expect(answer.body.error).toBe(
      'Block "Ask" (agent) uses model provider "anthropic", which permission group "Contractors" does not allow (allowed: openai)',
    );
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
