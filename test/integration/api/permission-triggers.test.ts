/**
 * Each permission group restriction, at save and at run time for every trigger (API sync, async,
 * stream, manual run, webhook trigger, schedule, form), with ACCESS_CONTROL_ENABLED on and off.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { sqsClient } from '../../../adapters/aws/sqs-client';
import { SqsJobQueue } from '../../../adapters/sqs/job-queue';
import { block, edge, graphOf } from '../../../core/engine/builders';
import type { WorkflowGraph } from '../../../core/engine/types';
import { fireExecutionId } from '../../../core/schedules/service';
import { formOf, submit } from '../../support/forms';
import { groupOf, memberOf, organizationOf, setAccessControl } from '../../support/organizations';
import { finishedJob, request, type Tenant, threeBlockGraph, useLocalService } from '../../support/service';

const service = useLocalService();

const start = () => block('start', 'start', 'Start', { inputFormat: [{ name: 'name', type: 'string' }] });

/**
 * An agent that would call a closed port on loopback, should it ever run. No key written out: a
 * literal key adds a warning of its own (docs/workflows.md), not the permission group's.
 */
function agentGraph(config: Record<string, unknown>): WorkflowGraph {
  return graphOf(
    [
      start(),
      block('ask', 'agent', 'Ask', {
        provider: 'openai',
        model: 'gpt-4o',
        userPrompt: 'hi <start.name>',
        baseUrl: 'http://127.0.0.1:9/v1',
        ...config,
      }),
    ],
    [edge('start', 'ask')],
  );
}

/** Each restriction: the group that sets it, a workflow it refuses, and the error that names the block. */
const restrictions = [
  {
    name: 'allowed blocks',
    group: { allowedBlocks: ['function', 'agent'] },
    graph: () => threeBlockGraph(),
    error:
      'Block "Respond" (response): block type "response" is not allowed by permission group "allowed blocks" (allowed: function, agent)',
  },
  {
    name: 'allowed model providers',
    group: { allowedModelProviders: ['openai', 'bedrock'] },
    graph: () => agentGraph({ provider: 'anthropic', model: 'claude-sonnet-4' }),
    error:
      'Block "Ask" (agent) uses model provider "anthropic", which permission group "allowed model providers" does not allow (allowed: openai, bedrock)',
  },
  {
    name: 'MCP tools off',
    group: { disableMcpTools: true },
    graph: () => agentGraph({ tools: [{ type: 'mcp', server: 'files' }] }),
    error: 'Block "Ask" (agent): MCP tools are turned off by permission group "MCP tools off"',
  },
  {
    name: 'custom tools off',
    group: { disableCustomTools: true },
    graph: () => agentGraph({ tools: [{ type: 'custom-tool', code: 'return 1' }] }),
    error: 'Block "Ask" (agent): custom tools are turned off by permission group "custom tools off"',
  },
] as const;

let fires = 0;
const jobQueue = () =>
  new SqsJobQueue({ client: sqsClient(), queueUrl: process.env.JOBS_QUEUE_URL as string });

async function jobError(tenant: Tenant, taskId: string): Promise<unknown> {
  // A job from a queued message (a schedule fire) exists once the worker has taken it.
  const job = await vi.waitFor(
    async () => {
      const answer = await finishedJob(tenant, taskId);
      expect(answer.status).toBe(200);
      return answer;
    },
    { timeout: 15_000, interval: 50 },
  );
  return job.body.status === 'completed' ? undefined : job.body.error;
}

/** Each trigger: runs the workflow as the tenant would start it, answering the run's error (none: it succeeded). */
const triggers: Record<string, (tenant: Tenant, workflowId: string) => Promise<unknown>> = {
  'API sync': async (tenant, workflowId) =>
    (await tenant.call('POST', `/api/workflows/${workflowId}/execute`, { name: 'ada' })).body.error,
  'API async': async (tenant, workflowId) => {
    const accepted = await request(service.get().url, 'POST', `/api/workflows/${workflowId}/execute`, {
      headers: { 'x-api-key': tenant.apiKey, 'x-execution-mode': 'async' },
      body: { name: 'ada' },
    });
    return jobError(tenant, accepted.body.taskId);
  },
  'API stream': async (tenant, workflowId) => {
    const response = await fetch(`${service.get().url}/api/workflows/${workflowId}/execute`, {
      method: 'POST',
      headers: { 'x-api-key': tenant.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'ada', stream: true }),
    });
    const frames = (await response.text())
      .split('\n\n')
      .filter((frame) => frame.startsWith('data: {'))
      .map((frame) => JSON.parse(frame.slice('data: '.length)));
    return frames.find((frame) => frame.event === 'error')?.error;
  },
  'manual run': async (tenant, workflowId) =>
    (await tenant.call('POST', `/api/workflows/${workflowId}/run`, { input: { name: 'ada' } })).body.error,
  'webhook trigger': async (tenant, workflowId) => {
    const webhook = await tenant.call('POST', `/api/workflows/${workflowId}/webhooks`, {});
    const accepted = await request(
      service.get().url,
      'POST',
      `/api/webhooks/trigger/${webhook.body.data.path}`,
      {
        body: { name: 'ada' },
      },
    );
    return jobError(tenant, accepted.body.taskId);
  },
  schedule: async (tenant, workflowId) => {
    await tenant.call('PUT', `/api/workflows/${workflowId}/schedule`, {
      cron: '0 9 * * *',
      input: { name: 'ada' },
    });
    fires += 1;
    const scheduledTime = new Date(Date.UTC(2031, 0, 1, 9) + fires * 60_000).toISOString();
    await jobQueue().send({ kind: 'schedule', workflowId, scheduledTime });
    const error = await jobError(tenant, fireExecutionId(workflowId, scheduledTime));
    await tenant.call('DELETE', `/api/workflows/${workflowId}/schedule`);
    return error;
  },
  form: async (tenant, workflowId) => {
    const form = await formOf(tenant, workflowId);
    const submitted = await submit(service.get().url, form.identifier, { formData: { name: 'ada' } });
    return jobError(tenant, submitted.body.data.executionId);
  },
};

/** One member per restriction, each in a group that sets only it, with the workflow it refuses. */
const members = new Map<
  string,
  { tenant: Tenant; saved: Record<string, any>; deployed: Record<string, any> }
>();

beforeAll(async () => {
  setAccessControl(true);
  const organization = await organizationOf(service.get(), 'restricted');
  for (const restriction of restrictions) {
    const tenant = await memberOf(
      service.get(),
      organization.id,
      'member',
      restriction.name.replaceAll(' ', '-'),
    );
    await groupOf(organization, { name: restriction.name, ...restriction.group }, [tenant]);
    const saved = await tenant.call('POST', '/api/workflows', {
      workspaceId: tenant.workspaceId,
      name: restriction.name,
      state: restriction.graph(),
    });
    const deployed = await tenant.call('POST', `/api/workflows/${saved.body.data.id}/deploy`);
    members.set(restriction.name, { tenant, saved: saved.body, deployed: deployed.body });
  }
});
beforeEach(() => setAccessControl(true));
afterAll(() => setAccessControl(false));

describe.each(restrictions)('restriction: $name', (restriction) => {
  const member = () => members.get(restriction.name)!;
  const workflowId = () => member().saved.data.id as string;

  it('warns at save and at deploy, naming the block', () => {
    expect(member().saved.warnings.map((warning: { message: string }) => warning.message)).toEqual([
      restriction.error,
    ]);
    expect(member().deployed.data.isDeployed).toBe(true);
    expect(member().deployed.warnings.map((warning: { message: string }) => warning.message)).toEqual([
      restriction.error,
    ]);
  });

  it.each(Object.keys(triggers))('refuses the run of trigger %s, naming the block', async (trigger) => {
    expect(await triggers[trigger](member().tenant, workflowId())).toBe(restriction.error);
  });

  it('neither warns nor refuses with ACCESS_CONTROL_ENABLED off', async () => {
    // Prepare
    setAccessControl(false);
    const { tenant } = member();

    // Act
    const saved = await tenant.call('PUT', `/api/workflows/${workflowId()}`, { state: restriction.graph() });
    const error = await triggers['API sync'](tenant, workflowId());

    // Assess: the run ends as it would anyway (the agents' model is not reachable)
    expect(saved.status).toBe(200);
    expect(saved.body.warnings).toBeUndefined();
    expect(String(error ?? '')).not.toContain('permission group');
  });
});

describe('with ACCESS_CONTROL_ENABLED off', () => {
  it.each(Object.keys(triggers))(
    'trigger %s runs what the group would refuse to the end',
    async (trigger) => {
      setAccessControl(false);
      const { tenant, saved } = members.get('allowed blocks')!;
      expect(await triggers[trigger](tenant, saved.data.id)).toBeUndefined();
    },
  );
});
