/** Model keys written into a graph: masked in every read, kept across a save of the masked graph, warned about, never logged. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoExecutionLogStore } from '../../../adapters/dynamodb/execution-log-store';
import { block, edge, graphOf } from '../../../core/engine/builders';
import type { WorkflowGraph } from '../../../core/engine/types';
import { type ModelServer, startOpenAiServer } from '../../support/model-servers';
import { type Tenant, useLocalService } from '../../support/service';

const service = useLocalService({ allowLoopbackOutbound: true });
let openai: ModelServer;
const key = 'sk-literal-key-4711';

beforeAll(async () => {
  openai = await startOpenAiServer();
});

afterAll(async () => {
  await openai.close();
});

function agentGraph(apiKey: string): WorkflowGraph {
  return graphOf(
    [
      block('start', 'start', 'Start', { inputFormat: [] }),
      block('writer', 'agent', 'Writer', {
        provider: 'openai',
        model: 'gpt-4o',
        userPrompt: 'Say hello',
        apiKey,
        baseUrl: openai.url,
      }),
    ],
    [edge('start', 'writer')],
  );
}

async function readerOf(owner: Tenant): Promise<Tenant> {
  const reader = await service.get().newTenant('reader');
  const added = await service.get().admin('POST', `/api/v1/admin/workspaces/${owner.workspaceId}/members`, {
    userId: reader.userId,
    permissions: 'read',
  });
  expect(added.status).toBe(200);
  return reader;
}

async function savedWorkflow(owner: Tenant, state: WorkflowGraph) {
  return owner.call('POST', '/api/workflows', { workspaceId: owner.workspaceId, name: 'Keys', state });
}

describe('literal model keys', () => {
  it('are masked in the save answer, which warns that an environment reference is the safe way', async () => {
    // Prepare
    const owner = await service.get().newTenant('owner');

    // Act
    const created = await savedWorkflow(owner, agentGraph(key));

    // Assess
    expect(created.status).toBe(201);
    expect(created.body.data.state.blocks.writer.config.apiKey).toBe('set');
    expect(created.body.warnings).toEqual([
      expect.objectContaining({
        blockId: 'writer',
        kind: 'literalApiKey',
        message: expect.stringContaining('{{'),
      }),
    ]);
    expect(JSON.stringify(created.body)).not.toContain(key);
  });

  it('are masked for a read-only member, and in the graph of a run', async () => {
    // Prepare
    const owner = await service.get().newTenant('owner');
    const reader = await readerOf(owner);
    const id = (await savedWorkflow(owner, agentGraph(key))).body.data.id;
    await owner.call('POST', `/api/workflows/${id}/deploy`);
    const run = await owner.call('POST', `/api/workflows/${id}/execute`, {});

    // Act
    const read = await reader.call('GET', `/api/workflows/${id}`);
    const snapshot = await reader.call('GET', `/api/v1/logs/executions/${run.body.metadata.executionId}`);

    // Assess
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    expect(openai.requests.at(-1)?.headers.authorization).toBe(`Bearer ${key}`);
    expect(read.body.data.state.blocks.writer.config.apiKey).toBe('set');
    expect(snapshot.status).toBe(200);
    expect(snapshot.body.workflowState.blocks.writer.config.apiKey).toBe('set');
    expect(JSON.stringify([read.body, snapshot.body])).not.toContain(key);
  });

  it('keep the stored key when the masked graph is saved back, and leave no trace in the log', async () => {
    // Prepare
    const owner = await service.get().newTenant('owner');
    const id = (await savedWorkflow(owner, agentGraph(key))).body.data.id;
    const masked = (await owner.call('GET', `/api/workflows/${id}`)).body.data.state;
    openai.reply({ status: 401, errorMessage: `Incorrect API key provided: ${key}` });

    // Act
    const updated = await owner.call('PUT', `/api/workflows/${id}`, { state: masked });
    const run = await owner.call('POST', `/api/workflows/${id}/run`, { draft: true });

    // Assess
    expect(updated.status).toBe(200);
    expect(openai.requests.at(-1)?.headers.authorization).toBe(`Bearer ${key}`);
    expect(run.body.success).toBe(false);
    expect(JSON.stringify(run.body)).not.toContain(key);
    const entry = await DynamoExecutionLogStore.fromEnv().getLogEntryByExecutionId(
      run.body.metadata.executionId,
    );
    expect(entry?.workflowState?.blocks.writer.config.apiKey).toBe('set');
    expect(JSON.stringify(entry)).not.toContain(key);
  });

  it('leave an environment reference as it is, without a warning', async () => {
    const owner = await service.get().newTenant('owner');
    const created = await savedWorkflow(owner, agentGraph('{{OPENAI_KEY}}'));
    expect(created.body.data.state.blocks.writer.config.apiKey).toBe('{{OPENAI_KEY}}');
    expect(created.body.warnings).toBeUndefined();
  });
});
