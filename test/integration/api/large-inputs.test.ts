/**
 * Large run inputs and the AWS limits the local server and stack hold runs to: a 5 MB input runs
 * sync, async and streamed (it travels by reference past Step Functions' 256 KB), bodies over the
 * service's 5 MB or API Gateway's 10 MB are refused with a 413 the client reads, and an event over
 * Lambda's 6 MB request limit is refused as Lambda refuses it.
 */
import { describe, expect, it } from 'vitest';
import { block, edge, graphOf } from '../../../core/engine/builders';
import { doneMarker } from '../../../core/runs/stream';
import { deployedWorkflow, finishedJob, type Tenant, useLocalService } from '../../support/service';

const service = useLocalService();

/** 5 MB of text: within the 5 MB (5,242,880 bytes) of a body with its JSON around it. */
const fiveMegabytes = 5_000_000;

/** start(text) → respond({length-proof: the text back, and its first characters}). */
function echoGraph() {
  return graphOf(
    [
      block('start', 'start', 'Start', { inputFormat: [{ name: 'text', type: 'string', required: true }] }),
      block('respond', 'response', 'Respond', { data: { echoed: '<start.text>' } }),
    ],
    [edge('start', 'respond')],
  );
}

function execute(tenant: Tenant, workflowId: string, body: string, headers: Record<string, string> = {}) {
  return fetch(`${service.get().url}/api/workflows/${workflowId}/execute`, {
    method: 'POST',
    headers: { 'x-api-key': tenant.apiKey, 'content-type': 'application/json', ...headers },
    body,
  });
}

/** Text of `length` characters that is not one letter repeated, so a truncation would show. */
function textOf(length: number): string {
  return 'abcdefghij'.repeat(Math.ceil(length / 10)).slice(0, length);
}

describe('a 5 MB run input', () => {
  it('runs sync and answers the whole input back', async () => {
    // Prepare
    const tenant = await service.get().newTenant('large-sync');
    const id = await deployedWorkflow(tenant, echoGraph());
    const text = textOf(fiveMegabytes);

    // Act
    const response = await execute(tenant, id, JSON.stringify({ text }));
    const answer = (await response.json()) as { success: boolean; output: { echoed: string } };

    // Assess
    expect(response.status).toBe(200);
    expect(answer.success).toBe(true);
    expect(answer.output.echoed).toBe(text);
  });

  it('runs async to a completed job with the whole input as its output', async () => {
    // Prepare
    const tenant = await service.get().newTenant('large-async');
    const id = await deployedWorkflow(tenant, echoGraph());
    const text = textOf(fiveMegabytes);

    // Act
    const accepted = await execute(tenant, id, JSON.stringify({ text }), { 'x-execution-mode': 'async' });
    const { taskId } = (await accepted.json()) as { taskId: string };
    const job = await finishedJob(tenant, taskId, 60_000);

    // Assess
    expect(accepted.status).toBe(202);
    expect(job.body).toMatchObject({ status: 'completed', success: true });
    expect(job.body.output.echoed).toBe(text);
  });

  it('runs streamed, with the whole input in the done frame', async () => {
    // Prepare
    const tenant = await service.get().newTenant('large-stream');
    const id = await deployedWorkflow(tenant, echoGraph());
    const text = textOf(fiveMegabytes);

    // Act
    const response = await execute(tenant, id, JSON.stringify({ text, stream: true }));
    const frames = await response.text();

    // Assess
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const done = frames
      .split('\n\n')
      .map((frame) => frame.replace(/^data: /, ''))
      .find((frame) => frame.startsWith('{"event":"done"'));
    expect(JSON.parse(done ?? '{}')).toMatchObject({ success: true, output: { echoed: text } });
    expect(frames.endsWith(doneMarker)).toBe(true);
  });
});

describe('bodies over the limits', () => {
  it('answers a body just over 5 MB with 413 naming the service limit', async () => {
    // Prepare
    const tenant = await service.get().newTenant('over-five');
    const id = await deployedWorkflow(tenant, echoGraph());

    // Act
    const response = await execute(tenant, id, JSON.stringify({ text: textOf(5 * 1024 * 1024) }));

    // Assess
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      error: expect.stringContaining('larger than 5 MB (5,242,880 bytes)'),
      code: 'PAYLOAD_TOO_LARGE',
    });
  });

  it('answers a 12 MB execute body with a 413 the client reads, JSON error and all', async () => {
    // Prepare
    const tenant = await service.get().newTenant('twelve');
    const id = await deployedWorkflow(tenant, echoGraph());

    // Act
    const response = await execute(tenant, id, JSON.stringify({ text: textOf(12 * 1024 * 1024) }));
    const body = await response.json();

    // Assess
    expect(response.status).toBe(413);
    expect(response.headers.get('connection')).toBe('close');
    expect(body).toEqual({ error: 'Request body is larger than 10 MB', code: 'PAYLOAD_TOO_LARGE' });
  });

  it('refuses, as Lambda does, a body within 5 MB whose event is over 6 MB once escaped', async () => {
    // Prepare: every quote of the body's string is escaped, and escaped again in the event.
    const tenant = await service.get().newTenant('escaped');
    const id = await deployedWorkflow(tenant, echoGraph());
    const body = JSON.stringify({ text: '"'.repeat(2_400_000) });

    // Act
    const response = await execute(tenant, id, body);

    // Assess
    expect(Buffer.byteLength(body)).toBeLessThan(5 * 1024 * 1024);
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      error: expect.stringContaining("Lambda's limit of 6,291,456 bytes"),
      code: 'PAYLOAD_TOO_LARGE',
    });
  });
});
