/** Streamed execution: the server-sent events of the interface, byte for byte. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoExecutionLogStore } from '../../../adapters/dynamodb/execution-log-store';
import { block, edge, graphOf } from '../../../core/engine/builders';
import { doneMarker, sseFrame } from '../../../core/runs/stream';
import { type ModelServer, startOpenAiServer } from '../../support/model-servers';
import { deployedWorkflow, type Tenant, threeBlockGraph, useLocalService } from '../../support/service';

const service = useLocalService({ allowLoopbackOutbound: true });
let openai: ModelServer;

beforeAll(async () => {
  openai = await startOpenAiServer();
});
afterAll(async () => {
  await openai.close();
});

function stream(tenant: Tenant, workflowId: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${service.get().url}/api/workflows/${workflowId}/execute`, {
    method: 'POST',
    headers: { 'x-api-key': tenant.apiKey, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

/** start → agent "writer" on the test OpenAI server. */
function agentGraph(userPrompt: string) {
  return graphOf(
    [
      block('start', 'start', 'Start', { inputFormat: [] }),
      block('writer', 'agent', 'Writer', {
        provider: 'openai',
        model: 'gpt-4o',
        userPrompt,
        apiKey: 'sk-test',
        baseUrl: openai.url,
      }),
    ],
    [edge('start', 'writer')],
  );
}

/** The duration of the done frame, which the expected text must repeat. */
function durationIn(text: string): number {
  return Number(/"duration":(\d+)/.exec(text)?.[1]);
}

describe('streamed execution', () => {
  it('answers an event stream: the done frame with the output and duration, then [DONE]', async () => {
    // Prepare
    const tenant = await service.get().newTenant('stream');
    const id = await deployedWorkflow(tenant);

    // Act
    const response = await stream(tenant, id, { name: 'ada', stream: true });
    const text = await response.text();

    // Assess
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(text).toBe(
      `data: {"event":"done","success":true,"output":{"shouted":"ADA"},"metadata":{"duration":${durationIn(text)}}}\n\n` +
        'data: [DONE]\n\n',
    );
  });

  it('sends each selected output once as a chunk when its block completes, by name or by id', async () => {
    // Prepare
    const tenant = await service.get().newTenant('stream');
    const id = await deployedWorkflow(tenant);

    // Act
    const response = await stream(tenant, id, {
      name: 'ada',
      stream: true,
      selectedOutputs: ['Shout.result', 'respond.data.shouted', 'SHOUT.result', 'Respond.status'],
    });
    const text = await response.text();

    // Assess
    expect(text).toBe(
      sseFrame({ blockId: 'shout', chunk: 'ADA' }) +
        sseFrame({ blockId: 'respond', chunk: 'ADA' }) +
        sseFrame({ blockId: 'respond', chunk: '200' }) +
        sseFrame({
          event: 'done',
          success: true,
          output: { shouted: 'ADA' },
          metadata: { duration: durationIn(text) },
        }) +
        doneMarker,
    );
  });

  it('sends an error frame before the done frame when the run fails, and still ends with [DONE]', async () => {
    // Prepare
    const tenant = await service.get().newTenant('stream');
    const id = await deployedWorkflow(tenant, threeBlockGraph({ code: "throw new Error('no luck');" }));

    // Act
    const response = await stream(tenant, id, { name: 'ada', stream: true });
    const text = await response.text();

    // Assess
    expect(response.status).toBe(200);
    expect(text).toBe(
      'data: {"event":"error","error":"Shout: Error: no luck"}\n\n' +
        `data: {"event":"done","success":false,"output":{},"metadata":{"duration":${durationIn(text)}}}\n\n` +
        'data: [DONE]\n\n',
    );
    const entry = await DynamoExecutionLogStore.fromEnv().getLogEntryByExecutionId(
      response.headers.get('x-execution-id') as string,
    );
    expect(entry).toMatchObject({
      trigger: 'api',
      level: 'error',
      executionData: { error: 'Shout: Error: no luck' },
    });
  });

  it("streams an agent's text in chunks as the model sends them, and logs the run", async () => {
    // Prepare
    const tenant = await service.get().newTenant('stream');
    openai.setDefault({ chunks: ['Otters ', 'hold ', 'hands.'], chunkDelayMs: 20 });
    const id = await deployedWorkflow(tenant, agentGraph('Say something about otters'));

    // Act
    const response = await stream(tenant, id, {}, { 'X-Stream-Response': 'true' });
    const text = await response.text();

    // Assess
    expect(
      text.startsWith(
        sseFrame({ blockId: 'writer', chunk: 'Otters ' }) +
          sseFrame({ blockId: 'writer', chunk: 'hold ' }) +
          sseFrame({ blockId: 'writer', chunk: 'hands.' }),
      ),
    ).toBe(true);
    expect(text.endsWith(doneMarker)).toBe(true);
    expect(text).toContain('"content":"Otters hold hands."');
    const entry = await DynamoExecutionLogStore.fromEnv().getLogEntryByExecutionId(
      response.headers.get('x-execution-id') as string,
    );
    expect(entry).toMatchObject({ trigger: 'api', level: 'info', models: ['gpt-4o'] });
  });

  it("with selectedOutputs, sends a selected agent's content as its chunks once, and no chunk of an agent not selected", async () => {
    // Prepare
    const tenant = await service.get().newTenant('stream');
    openai.setDefault({ chunks: ['Otters ', 'hold ', 'hands.'], chunkDelayMs: 5 });
    const id = await deployedWorkflow(tenant, agentGraph('Say something about otters'));

    // Act
    const selected = await (
      await stream(tenant, id, { stream: true, selectedOutputs: ['Writer.content'] })
    ).text();
    const other = await (
      await stream(tenant, id, { stream: true, selectedOutputs: ['Writer.model'] })
    ).text();

    // Assess
    const chunkFrames = (text: string) => text.split('\n\n').filter((frame) => frame.includes('"chunk"'));
    expect(chunkFrames(selected)).toEqual([
      'data: {"blockId":"writer","chunk":"Otters "}',
      'data: {"blockId":"writer","chunk":"hold "}',
      'data: {"blockId":"writer","chunk":"hands."}',
    ]);
    expect(chunkFrames(other)).toEqual(['data: {"blockId":"writer","chunk":"gpt-4o"}']);
  });

  it('delivers the first chunk while the model is still answering', async () => {
    // Prepare: the model holds the rest of its answer until the test has seen the first chunk
    const tenant = await service.get().newTenant('stream');
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    openai.reply({ chunks: ['first ', 'second'], holdAfterFirstChunk: held });
    const id = await deployedWorkflow(tenant, agentGraph('Go'));

    // Act
    const response = await stream(tenant, id, { stream: true });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let whileHeld = '';
    while (!whileHeld.endsWith('\n\n')) {
      const { value, done } = await reader.read();
      if (done) break;
      whileHeld += decoder.decode(value, { stream: true });
    }
    release();
    let afterwards = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      afterwards += decoder.decode(value, { stream: true });
    }

    // Assess
    expect(whileHeld).toBe(sseFrame({ blockId: 'writer', chunk: 'first ' }));
    expect(afterwards.startsWith(sseFrame({ blockId: 'writer', chunk: 'second' }))).toBe(true);
    expect(afterwards.endsWith(doneMarker)).toBe(true);
  });

  it('refuses an unknown selected output with 400 before streaming', async () => {
    const tenant = await service.get().newTenant('stream');
    const id = await deployedWorkflow(tenant);
    const response = await stream(tenant, id, {
      name: 'ada',
      stream: true,
      selectedOutputs: ['Nobody.result'],
    });
    const body = (await response.json()) as { code: string; error: string; details: unknown[] };
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(body).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'selectedOutputs.0' }] });
    expect(body.error).toContain('Nobody.result');
  });

  it('answers the usual error body for a workflow that is not deployed', async () => {
    const tenant = await service.get().newTenant('stream');
    const id = await deployedWorkflow(tenant);
    await tenant.call('POST', `/api/workflows/${id}/undeploy`);
    const response = await stream(tenant, id, { name: 'ada', stream: true });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { code: string }).code).toBe('FORBIDDEN');
  });
});
