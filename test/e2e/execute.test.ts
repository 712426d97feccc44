/**
 * Running a workflow through the compiled handlers: sync, async (a job to poll), streamed (model
 * text from an OpenAI-compatible server on loopback and selected outputs as chunks), a failing run,
 * bad input, and a run by hand.
 */
import { describe, expect, it } from 'vitest';
import { block, edge, graphOf } from '../../core/engine/builders';
import { deployedWorkflow, finishedJob, threeBlockGraph } from '../../support/api-client';
import { startOpenAiServer, useModelServer } from '../support/model-servers';
import { useReceiver } from './receiver';
import { executeAsync, useE2eService } from './service';

const service = useE2eService();
const openai = useModelServer(startOpenAiServer);
const receiver = useReceiver();

/** start → agent "Writer" (OpenAI-compatible, on the loopback test server) → response. */
function writerGraph() {
  return graphOf(
    [
      block('start', 'start', 'Start', { inputFormat: [{ name: 'topic', type: 'string', required: true }] }),
      block('writer', 'agent', 'Writer', {
        provider: 'openai',
        model: 'gpt-4o',
        userPrompt: 'Write about <start.topic>',
        apiKey: 'sk-test',
        baseUrl: openai().url,
      }),
      block('respond', 'response', 'Respond', { data: { text: '<writer.content>' } }),
    ],
    [edge('start', 'writer'), edge('writer', 'respond')],
  );
}

/** The JSON of each `data:` frame of a server-sent event stream, and the frames that are not JSON. */
function framesOf(text: string): unknown[] {
  return text
    .split('\n\n')
    .filter((frame) => frame.startsWith('data: '))
    .map((frame) => frame.slice('data: '.length))
    .map((data) => (data === '[DONE]' ? data : JSON.parse(data)));
}

describe('sync execution', () => {
  it('answers 200 with the output, metadata and trace spans', async () => {
    // Prepare
    const tenant = await service.newTenant('sync');
    const id = await deployedWorkflow(tenant);

    // Act
    const answer = await tenant.call('POST', `/api/workflows/${id}/execute`, { name: 'ada' });

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-ratelimit-limit')).toEqual(expect.any(String));
    expect(answer.body).toMatchObject({
      success: true,
      output: { shouted: 'ADA' },
      metadata: { duration: expect.any(Number), executionId: expect.any(String) },
      traceSpans: [expect.objectContaining({ type: 'workflow' })],
    });
  });

  it('answers a failing run with 500 EXECUTION_ERROR, success false and the error', async () => {
    // Prepare
    const tenant = await service.newTenant('failing');
    const id = await deployedWorkflow(tenant, threeBlockGraph({ code: 'throw new Error("boom");' }));

    // Act
    const answer = await tenant.call('POST', `/api/workflows/${id}/execute`, { name: 'ada' });

    // Assess
    expect(answer.status).toBe(500);
    expect(answer.body).toMatchObject({ success: false, code: 'EXECUTION_ERROR' });
    expect(answer.body.error).toContain('boom');
  });

  it('refuses a missing required input with 400 VALIDATION_ERROR naming it', async () => {
    // Prepare
    const tenant = await service.newTenant('bad-input');
    const id = await deployedWorkflow(tenant);

    // Act
    const answer = await tenant.call('POST', `/api/workflows/${id}/execute`, {});

    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('VALIDATION_ERROR');
    expect(answer.body.details[0].path).toBe('name');
  });

  it('refuses a body that is not JSON with 400 INVALID_JSON', async () => {
    // Prepare
    const tenant = await service.newTenant('bad-json');
    const id = await deployedWorkflow(tenant);

    // Act
    const answer = await fetch(`${service.url}/api/workflows/${id}/execute`, {
      method: 'POST',
      headers: { 'x-api-key': tenant.apiKey, 'content-type': 'application/json' },
      body: '{"name": ',
    });

    // Assess
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ code: 'INVALID_JSON' });
  });

  it('refuses an unknown API key with 401 UNAUTHORIZED', async () => {
    // Prepare
    const tenant = await service.newTenant('key');
    const id = await deployedWorkflow(tenant);

    // Act
    const answer = await service.as('svc_not-a-key')('POST', `/api/workflows/${id}/execute`, { name: 'ada' });

    // Assess
    expect(answer.status).toBe(401);
    expect(answer.body.code).toBe('UNAUTHORIZED');
  });
});

describe('an api block', () => {
  it('calls a server on loopback that OUTBOUND_ALLOWLIST admits, and answers what it got', async () => {
    // Prepare
    const tenant = await service.newTenant('api-block');
    const id = await deployedWorkflow(
      tenant,
      graphOf(
        [
          block('start', 'start', 'Start', {
            inputFormat: [{ name: 'name', type: 'string', required: true }],
          }),
          block('call', 'api', 'Call', {
            url: `${receiver.url}/greet`,
            method: 'POST',
            body: { name: '<start.name>' },
          }),
          block('respond', 'response', 'Respond', { data: { status: '<call.status>', data: '<call.data>' } }),
        ],
        [edge('start', 'call'), edge('call', 'respond')],
      ),
    );

    // Act
    const answer = await tenant.call('POST', `/api/workflows/${id}/execute`, { name: 'ada' });
    const seen = await receiver.requestTo('/greet');

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.body.output).toEqual({ status: 200, data: { received: true } });
    expect(seen.method).toBe('POST');
    expect(JSON.parse(seen.body)).toEqual({ name: 'ada' });
  });
});

describe('async execution', () => {
  it('answers 202 with a job whose status link ends completed with the output', async () => {
    // Prepare
    const tenant = await service.newTenant('async');
    const id = await deployedWorkflow(tenant);

    // Act
    const accepted = await executeAsync(service, tenant, id, { name: 'ada' });
    const body = accepted.body;
    const job = await finishedJob(tenant, body.taskId);

    // Assess
    expect(accepted.status).toBe(202);
    expect(body).toEqual({
      success: true,
      taskId: expect.any(String),
      status: 'queued',
      createdAt: expect.any(String),
      links: { status: `/api/jobs/${body.taskId}` },
    });
    expect(job.status).toBe(200);
    expect(job.body).toMatchObject({
      success: true,
      taskId: body.taskId,
      status: 'completed',
      output: { shouted: 'ADA' },
      metadata: {
        startedAt: expect.any(String),
        completedAt: expect.any(String),
        duration: expect.any(Number),
      },
    });
  });

  it('ends a failing run as a failed job with its error', async () => {
    // Prepare
    const tenant = await service.newTenant('async-failing');
    const id = await deployedWorkflow(tenant, threeBlockGraph({ code: 'throw new Error("boom");' }));

    // Act
    const accepted = (await executeAsync(service, tenant, id, { name: 'ada' })).body;
    const job = await finishedJob(tenant, accepted.taskId);

    // Assess
    // `success` is the status request's; the run's own outcome is `status` and `error`.
    expect(job.body).toMatchObject({ success: true, status: 'failed' });
    expect(JSON.stringify(job.body.error)).toContain('boom');
  });

  it("answers 404 for an unknown task id and for another tenant's job", async () => {
    // Prepare
    const owner = await service.newTenant('job-owner');
    const stranger = await service.newTenant('job-stranger');
    const id = await deployedWorkflow(owner);
    const accepted = (await executeAsync(service, owner, id, { name: 'ada' })).body;

    // Act
    const foreign = await stranger.call('GET', `/api/jobs/${accepted.taskId}`);
    const unknown = await owner.call('GET', '/api/jobs/no-such-task');

    // Assess
    expect(foreign.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('NOT_FOUND');
  });
});

describe('streamed execution', () => {
  it('streams the model text as chunks, selected outputs, the done frame, then [DONE]', async () => {
    // Prepare
    const tenant = await service.newTenant('stream');
    const id = await deployedWorkflow(tenant, writerGraph());
    openai().setDefault({ content: 'Otters hold hands.', chunks: ['Otters ', 'hold ', 'hands.'] });

    // Act
    const response = await fetch(`${service.url}/api/workflows/${id}/execute`, {
      method: 'POST',
      headers: { 'x-api-key': tenant.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({
        topic: 'otters',
        stream: true,
        selectedOutputs: ['Writer.content', 'Respond.status'],
      }),
    });
    const text = await response.text();

    // Assess
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('x-execution-id')).toEqual(expect.any(String));
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(framesOf(text)).toEqual([
      { blockId: 'writer', chunk: 'Otters ' },
      { blockId: 'writer', chunk: 'hold ' },
      { blockId: 'writer', chunk: 'hands.' },
      { blockId: 'respond', chunk: '200' },
      {
        event: 'done',
        success: true,
        output: { text: 'Otters hold hands.' },
        metadata: { duration: expect.any(Number) },
      },
      '[DONE]',
    ]);
  });

  it('sends a failure as an error frame before a done frame with success false', async () => {
    // Prepare
    const tenant = await service.newTenant('stream-failing');
    const id = await deployedWorkflow(tenant, threeBlockGraph({ code: 'throw new Error("boom");' }));

    // Act
    const response = await fetch(`${service.url}/api/workflows/${id}/execute`, {
      method: 'POST',
      headers: { 'x-api-key': tenant.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'ada', stream: true }),
    });
    const frames = framesOf(await response.text());

    // Assess
    expect(response.status).toBe(200);
    expect(frames).toEqual([
      { event: 'error', error: expect.stringContaining('boom') },
      expect.objectContaining({ event: 'done', success: false }),
      '[DONE]',
    ]);
  });

  it('refuses a selected output that names no block with 400 before streaming', async () => {
    // Prepare
    const tenant = await service.newTenant('stream-bad');
    const id = await deployedWorkflow(tenant);

    // Act
    const answer = await tenant.call('POST', `/api/workflows/${id}/execute`, {
      name: 'ada',
      stream: true,
      selectedOutputs: ['Nobody.result'],
    });

    // Assess
    expect(answer.status).toBe(400);
    expect(answer.headers.get('content-type')).toContain('application/json');
    expect(answer.body.code).toBe('VALIDATION_ERROR');
  });
});

describe('a run by hand', () => {
  it('runs the deployed workflow, or with draft the saved graph, like a sync execute', async () => {
    // Prepare
    const tenant = await service.newTenant('manual');
    const id = await deployedWorkflow(tenant);
    await tenant.call('PUT', `/api/workflows/${id}`, {
      state: threeBlockGraph({ code: 'return <start.name> + "!";' }),
    });

    // Act
    const deployed = await tenant.call('POST', `/api/workflows/${id}/run`, { input: { name: 'ada' } });
    const draft = await tenant.call('POST', `/api/workflows/${id}/run`, {
      input: { name: 'ada' },
      draft: true,
    });

    // Assess
    expect(deployed.status).toBe(200);
    expect(deployed.body).toMatchObject({ success: true, output: { shouted: 'ADA' } });
    expect(draft.status).toBe(200);
    expect(draft.body).toMatchObject({ success: true, output: { shouted: 'ada!' } });
  });
});
