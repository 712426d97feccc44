/**
 * Importing Sim's workflow files over HTTP against the local emulators, and running them: outputs, model
 * blocks answered by loopback model servers through the deployment's OPENAI_BASE_URL and
 * ANTHROPIC_BASE_URL, refusals that list every block and store nothing, and the export round trips.
 */
import { describe, expect, it } from 'vitest';
import { useDeploymentModelServers } from '../../support/model-servers';
import { type Tenant, request, useLocalService } from '../../support/service';
import {
  simBlock,
  simEdge,
  simExport,
  simGreeting,
  simParent,
  simUnsupported,
} from '../../support/sim-files';

const models = useDeploymentModelServers();
const service = useLocalService();

async function imported(owner: Tenant, workflow: unknown, extra: Record<string, unknown> = {}) {
  return owner.call('POST', '/api/workflows/import', { workspaceId: owner.workspaceId, workflow, ...extra });
}

async function workflowNames(owner: Tenant): Promise<string[]> {
  const listed = await owner.call('GET', `/api/workflows?workspaceId=${owner.workspaceId}`);
  return listed.body.data.map((workflow: { name: string }) => workflow.name).sort();
}

function simCondition() {
  const conditions = JSON.stringify([
    { id: 'cond-1-if', title: 'if', value: '<start.n> > 100' },
    { id: 'cond-1-else', title: 'else', value: '' },
  ]);
  return simExport(
    'Classify',
    [
      simBlock({
        id: 'start-1',
        type: 'starter',
        name: 'Start',
        values: { startWorkflow: 'manual', inputFormat: [{ id: 'f1', name: 'n', type: 'number' }] },
      }),
      simBlock({ id: 'cond-1', type: 'condition', name: 'Size', values: { conditions } }),
      simBlock({
        id: 'big',
        type: 'function',
        name: 'Big',
        values: { language: 'javascript', code: "return 'big';" },
      }),
      simBlock({
        id: 'small',
        type: 'function',
        name: 'Small',
        values: { language: 'javascript', code: "return 'small';" },
      }),
    ],
    [
      simEdge('start-1', 'cond-1'),
      simEdge('cond-1', 'big', 'condition-cond-1-if'),
      simEdge('cond-1', 'small', 'condition-cond-1-else'),
    ],
  );
}

function simAgents() {
  return simExport(
    'Two models',
    [
      simBlock({
        id: 'start-1',
        type: 'start_trigger',
        name: 'Start',
        values: { inputFormat: [{ id: 'f1', name: 'topic', type: 'string' }] },
      }),
      simBlock({
        id: 'gpt',
        type: 'agent',
        name: 'Writer',
        values: {
          messages: [
            { role: 'system', content: 'You write one line.' },
            { role: 'user', content: 'Write about <start.topic>' },
          ],
          model: 'gpt-4o',
          temperature: 0.3,
          apiKey: '{{OPENAI_API_KEY}}',
        },
      }),
      simBlock({
        id: 'claude',
        type: 'agent',
        name: 'Critic',
        values: {
          systemPrompt: 'You judge a line.',
          userPrompt: 'Judge: <writer.content>',
          model: 'claude-3-7-sonnet-latest',
          apiKey: '{{ANTHROPIC_API_KEY}}',
        },
      }),
    ],
    [simEdge('start-1', 'gpt'), simEdge('gpt', 'claude')],
  );
}

async function setSecret(owner: Tenant, name: string, value: string) {
  const answer = await owner.call('PUT', `/api/workspaces/${owner.workspaceId}/environment/${name}`, {
    value,
  });
  expect(answer.status).toBeLessThan(300);
}

describe('POST /api/workflows/import', () => {
  it("imports Sim's export, deploys it, and the run answers as the Sim workflow would", async () => {
    // Prepare
    const owner = await service.get().newTenant('importer');

    // Act
    const answer = await imported(owner, simGreeting(), { deploy: true });
    const run = await owner.call('POST', `/api/workflows/${answer.body.data?.id}/execute`, { name: 'Ada' });

    // Assess
    expect(answer.status).toBe(201);
    expect(answer.body.data).toEqual({
      id: expect.any(String),
      name: 'Greeter',
      deployed: true,
      warnings: [],
    });
    expect(run.status, JSON.stringify(run.body).slice(0, 500)).toBe(200);
    expect(run.body.output).toEqual({ greeting: 'Hello, Ada!' });
  });

  it('takes the file as a JSON string, inside a {data} wrapper and in the older root form', async () => {
    // Prepare
    const owner = await service.get().newTenant('importer');
    const file = simGreeting();
    const forms = [JSON.stringify(file), { data: file }, { ...file.state }];

    // Act
    const answers = await Promise.all(
      forms.map((form, index) => imported(owner, form, { name: `Form ${index}` })),
    );

    // Assess
    expect(answers.map((answer) => answer.status)).toEqual([201, 201, 201]);
    expect(await workflowNames(owner)).toEqual(['Form 0', 'Form 1', 'Form 2']);
  });

  it('follows a condition block down the branch Sim would take', async () => {
    // Prepare
    const owner = await service.get().newTenant('importer');
    const id = (await imported(owner, simCondition(), { deploy: true })).body.data.id;

    // Act
    const big = await owner.call('POST', `/api/workflows/${id}/execute`, { n: 250 });
    const small = await owner.call('POST', `/api/workflows/${id}/execute`, { n: 5 });

    // Assess
    expect(big.body.output).toMatchObject({ result: 'big' });
    expect(small.body.output).toMatchObject({ result: 'small' });
  });

  it("runs imported agent blocks through the deployment's model endpoints with the workspace's keys", async () => {
    // Prepare
    const owner = await service.get().newTenant('importer');
    await setSecret(owner, 'OPENAI_API_KEY', 'sk-openai-import-test');
    await setSecret(owner, 'ANTHROPIC_API_KEY', 'sk-ant-import-test');
    models.openai().reply({ content: 'Tides keep time for the moon.' });
    models.anthropic().reply({ content: 'Seven out of ten.' });
    const id = (await imported(owner, simAgents(), { deploy: true })).body.data.id;

    // Act
    const run = await owner.call('POST', `/api/workflows/${id}/execute`, { topic: 'tides' });

    // Assess
    expect(run.status).toBe(200);
    expect(run.body.output).toMatchObject({ content: 'Seven out of ten.' });
    const [toOpenAi] = models.openai().requests;
    expect(toOpenAi.headers.authorization).toBe('Bearer sk-openai-import-test');
    expect(toOpenAi.body).toMatchObject({
      model: 'gpt-4o',
      temperature: 0.3,
      messages: [
        { role: 'system', content: 'You write one line.' },
        { role: 'user', content: 'Write about tides' },
      ],
    });
    const [toAnthropic] = models.anthropic().requests;
    expect(toAnthropic.headers.authorization ?? toAnthropic.headers['x-api-key']).toContain(
      'sk-ant-import-test',
    );
    expect(JSON.stringify(toAnthropic.body.messages)).toContain('Judge: Tides keep time for the moon.');
  });

  it('refuses a workflow with blocks that cannot run here with 422 listing each, and stores nothing', async () => {
    // Prepare
    const owner = await service.get().newTenant('importer');
    const before = await workflowNames(owner);

    // Act
    const answer = await imported(owner, simUnsupported());

    // Assess
    expect(answer.status).toBe(422);
    expect(answer.body.code).toBe('UNSUPPORTED_WORKFLOW');
    expect(answer.body.details).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ blockId: 'slack-1', name: 'Tell the team', type: 'slack' }),
        expect.objectContaining({ blockId: 'eval-1', name: 'Grade it', type: 'evaluator' }),
      ]),
    );
    expect(answer.body.details).toHaveLength(2);
    expect(await workflowNames(owner)).toEqual(before);
  });

  it('refuses a body that is not JSON with 400 INVALID_JSON, and a file that is no workflow with 400', async () => {
    // Prepare
    const owner = await service.get().newTenant('importer');

    // Act
    const malformed = await request(service.get().url, 'POST', '/api/workflows/import', {
      headers: { 'x-api-key': owner.apiKey },
      rawBody: `{"workspaceId": "${owner.workspaceId}", "workflow": {"state": `,
    });
    const badString = await imported(owner, '{"version": "1.0", "state": {');
    const noBlocks = await imported(owner, { version: '1.0', state: { edges: [] } });

    // Assess
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe('INVALID_JSON');
    expect(badString.status).toBe(400);
    expect(badString.body.error).toMatch(/not valid JSON/);
    expect(noBlocks.status).toBe(400);
    expect(noBlocks.body.details).toEqual([expect.objectContaining({ path: 'workflow.blocks' })]);
    expect(await workflowNames(owner)).toEqual([]);
  });

  it('needs write permission on the workspace: a reader gets 403, a stranger 404', async () => {
    // Prepare
    const owner = await service.get().newTenant('owner');
    const reader = await service.get().newTenant('reader');
    const stranger = await service.get().newTenant('stranger');
    await service.get().admin('POST', `/api/v1/admin/workspaces/${owner.workspaceId}/members`, {
      userId: reader.userId,
      permissions: 'read',
    });
    const body = { workspaceId: owner.workspaceId, workflow: simGreeting() };

    // Act
    const asReader = await reader.call('POST', '/api/workflows/import', body);
    const asStranger = await stranger.call('POST', '/api/workflows/import', body);

    // Assess
    expect(asReader.status).toBe(403);
    expect(asStranger.status).toBe(404);
    expect(await workflowNames(owner)).toEqual([]);
  });

  it('maps a child workflow block to the workflow of the same id in the workspace', async () => {
    // Prepare
    const owner = await service.get().newTenant('importer');
    const child = (await imported(owner, simGreeting('Child'), { deploy: true })).body.data.id;
    const parent = simParent(child);

    // Act
    const answer = await imported(owner, parent);

    // Assess
    expect(answer.status).toBe(201);
    const stored = await owner.call('GET', `/api/workflows/${answer.body.data.id}`);
    expect(stored.body.data.state.blocks.call.config.workflowId).toBe(child);
  });
});

describe('GET /api/workflows/{id}/export', () => {
  it('gives our graph, which imports into a workflow that runs the same', async () => {
    // Prepare
    const owner = await service.get().newTenant('exporter');
    const original = (await imported(owner, simCondition(), { deploy: true })).body.data.id;

    // Act
    const exported = await owner.call('GET', `/api/workflows/${original}/export`);
    const copy = await imported(owner, exported.body.data, { name: 'Copy', deploy: true });
    const runs = await Promise.all(
      [original, copy.body.data.id].map((id) =>
        owner.call('POST', `/api/workflows/${id}/execute`, { n: 500 }),
      ),
    );

    // Assess
    expect(exported.status).toBe(200);
    expect(exported.body.data).toMatchObject({ name: 'Classify', state: { blocks: expect.any(Object) } });
    expect(copy.status).toBe(201);
    expect(runs[1].body.output).toEqual(runs[0].body.output);
    expect(runs[1].body.output).toMatchObject({ result: 'big' });
  });

  it("gives Sim's export with format=sim, which imports into a workflow that runs the same", async () => {
    // Prepare
    const owner = await service.get().newTenant('exporter');
    const original = (await imported(owner, simGreeting(), { deploy: true })).body.data.id;

    // Act
    const exported = await owner.call('GET', `/api/workflows/${original}/export?format=sim`);
    const copy = await imported(owner, exported.body.data, { name: 'Copy', deploy: true });
    const runs = await Promise.all(
      [original, copy.body.data.id].map((id) =>
        owner.call('POST', `/api/workflows/${id}/execute`, { name: 'Grace' }),
      ),
    );

    // Assess
    expect(exported.body.data).toMatchObject({
      version: '1.0',
      state: { blocks: expect.any(Object), edges: expect.any(Array) },
    });
    for (const block of Object.values(exported.body.data.state.blocks) as {
      subBlocks: unknown;
      position: unknown;
    }[]) {
      // What Sim's importer checks of every block.
      expect(block).toMatchObject({
        subBlocks: expect.any(Object),
        position: { x: expect.any(Number), y: expect.any(Number) },
      });
    }
    expect(runs[1].body.output).toEqual({ greeting: 'Hello, Grace!' });
    expect(runs[1].body.output).toEqual(runs[0].body.output);
  });

  it('needs read permission: a stranger gets 404', async () => {
    // Prepare
    const owner = await service.get().newTenant('exporter');
    const stranger = await service.get().newTenant('stranger');
    const id = (await imported(owner, simGreeting())).body.data.id;

    // Act
    const answer = await stranger.call('GET', `/api/workflows/${id}/export`);

    // Assess
    expect(answer.status).toBe(404);
  });
});
