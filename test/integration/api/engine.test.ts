import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoExecutionLogStore } from '../../../adapters/dynamodb/execution-log-store';
import { block, edge, graphOf } from '../../../core/engine/builders';
import { type ModelServer, startOpenAiServer } from '../../support/model-servers';
import { deployedWorkflow, useLocalService } from '../../support/service';

// The guard lets loopback through for this service only, so blocks can reach the test servers.
const service = useLocalService({ allowLoopbackOutbound: true });
let openai: ModelServer;
let api: Server;
let apiOrigin: string;

beforeAll(async () => {
  openai = await startOpenAiServer();
  api = createServer((request, response) => {
    response.writeHead(request.url === '/missing' ? 404 : 200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ path: request.url, auth: request.headers.authorization ?? null }));
  });
  await new Promise<void>((done) => api.listen(0, '127.0.0.1', done));
  apiOrigin = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await openai.close();
  await new Promise((done) => api.close(done));
});

describe('the complete engine through the HTTP API', () => {
  it('runs an agent through the guard with a key from the workspace environment, costing its tokens', async () => {
    const tenant = await service.get().newTenant('agent');
    await tenant.call('PUT', `/api/workspaces/${tenant.workspaceId}/environment/OPENAI_KEY`, {
      value: 'sk-test-secret-42',
    });
    const id = await deployedWorkflow(
      tenant,
      graphOf(
        [
          block('start', 'start', 'Start', {
            inputFormat: [{ name: 'topic', type: 'string', required: true }],
          }),
          block('writer', 'agent', 'Writer', {
            provider: 'openai',
            model: 'gpt-4o',
            systemPrompt: 'Be brief.',
            userPrompt: 'Write about <start.topic>',
            apiKey: '{{OPENAI_KEY}}',
            baseUrl: openai.url,
          }),
          block('respond', 'response', 'Respond', {
            data: { text: '<writer.content>', tokens: '<writer.tokens>' },
          }),
        ],
        [edge('start', 'writer'), edge('writer', 'respond')],
      ),
    );

    const answer = await tenant.call('POST', `/api/workflows/${id}/execute`, { topic: 'otters' });

    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.output.text).toBe('Hello from the test model.');
    expect(answer.body.output.tokens.total).toBeGreaterThan(0);
    const seen = openai.requests.at(-1)!;
    expect(seen.headers.authorization).toBe('Bearer sk-test-secret-42');
    expect(JSON.stringify(seen.body)).toContain('Write about otters');
    const entry = await DynamoExecutionLogStore.fromEnv().getLogEntryByExecutionId(
      answer.body.metadata.executionId,
    );
    expect(entry?.models).toEqual(['gpt-4o']);
    expect(entry?.cost.tokens.total).toBe(answer.body.output.tokens.total);
    expect(entry?.cost.total).toBeGreaterThan(0.001);
    expect(answer.body.metadata.cost).toEqual(entry?.cost);
    expect(answer.body.metadata.cost.models['gpt-4o'].tokens.total).toBe(answer.body.output.tokens.total);
    expect(JSON.stringify(entry)).not.toContain('sk-test-secret-42');
  });

  it('calls an API, loops over its answer and fans out in parallel', async () => {
    const tenant = await service.get().newTenant('flow');
    const loop = block('each', 'loop', 'Each', { loopType: 'forEach', forEachItems: '<start.items>' });
    const double = {
      ...block('double', 'function', 'Double', { code: 'return <loop.currentItem> * 2;' }),
      parentId: 'each',
    };
    const fan = block('fan', 'parallel', 'Fan', { parallelType: 'count', count: 3 });
    const cell = {
      ...block('cell', 'function', 'Cell', { code: 'return <parallel.index> + 10;' }),
      parentId: 'fan',
    };
    const id = await deployedWorkflow(
      tenant,
      graphOf(
        [
          block('start', 'start', 'Start', {
            inputFormat: [{ name: 'items', type: 'array', required: true }],
          }),
          block('fetch', 'api', 'Fetch', { url: `${apiOrigin}/things`, method: 'GET' }),
          loop,
          double,
          fan,
          cell,
          block('respond', 'response', 'Respond', {
            data: { fetched: '<fetch.data.path>', doubled: '<each.results>', cells: '<fan.results>' },
          }),
        ],
        [
          edge('start', 'fetch'),
          edge('fetch', 'each'),
          edge('each', 'double', 'loop-start-source'),
          edge('each', 'fan'),
          edge('fan', 'cell', 'parallel-start-source'),
          edge('fan', 'respond'),
        ],
      ),
    );

    const answer = await tenant.call('POST', `/api/workflows/${id}/execute`, { items: [1, 2, 3] });

    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    // Each result is the whole output of the body's last block, as the graph format says.
    const results = (values: number[]) => values.map((result) => ({ result, stdout: '' }));
    expect(answer.body.output).toEqual({
      fetched: '/things',
      doubled: results([2, 4, 6]),
      cells: results([10, 11, 12]),
    });
    const spans = answer.body.traceSpans[0].children;
    const eachSpan = spans.find((span: any) => span.blockId === 'each');
    expect(eachSpan.children.map((span: any) => span.iterationIndex)).toEqual([0, 1, 2]);
  });

  it('refuses an api block aimed at the cloud metadata address, failing the run with the reason', async () => {
    const tenant = await service.get().newTenant('guard');
    const id = await deployedWorkflow(
      tenant,
      graphOf(
        [
          block('start', 'start', 'Start', { inputFormat: [] }),
          block('steal', 'api', 'Steal', { url: 'http://169.254.169.254/latest/meta-data/', method: 'GET' }),
        ],
        [edge('start', 'steal')],
      ),
    );

    const answer = await tenant.call('POST', `/api/workflows/${id}/execute`, {});

    expect(answer.status).toBe(500);
    expect(answer.body.code).toBe('EXECUTION_ERROR');
    expect(answer.body.error).toMatch(/Steal: .*refused/);
  });
});
