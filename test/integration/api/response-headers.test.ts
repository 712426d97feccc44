import { describe, expect, it } from 'vitest';
import type { WorkflowGraph } from '../../../core/engine/types';
import { deployedWorkflow, request, threeBlockGraph, useLocalService } from '../../support/service';

const service = useLocalService();

function respondingWith(headers: unknown, inputFormat?: unknown[]): WorkflowGraph {
  const state = threeBlockGraph(inputFormat ? { inputFormat, code: 'return 1;' } : {});
  state.blocks.respond.config.headers = headers;
  return state;
}

describe('response block headers when a workflow is saved', () => {
  it.each([
    ['set-cookie', 'session=stolen'],
    ['content-security-policy', "default-src *; script-src 'unsafe-inline'"],
    ['access-control-allow-origin', '*'],
    ['location', 'https://example.com/'],
    ['transfer-encoding', 'chunked'],
    ['content-type', 'text/html'],
    ['Content-Length', '3'],
    ['x-ratelimit-remaining', '1000'],
    ['x-content-type-options', 'sniff'],
  ])('refuses %s with a 400 naming it', async (name, value) => {
    // Prepare
    const tenant = await service.get().newTenant('author');

    // Act
    const saved = await tenant.call('POST', '/api/workflows', {
      workspaceId: tenant.workspaceId,
      name: 'Headers',
      state: respondingWith({ [name]: value }),
    });

    // Assess
    expect(saved.status).toBe(400);
    expect(saved.body.code).toBe('VALIDATION_ERROR');
    expect(saved.body.details).toEqual([
      expect.objectContaining({
        path: `blocks.respond.config.headers.${name}`,
        message: expect.stringContaining(`"${name}" is not allowed`),
      }),
    ]);
  });

  it('refuses a line break in a header value with a 400, also on update', async () => {
    // Prepare
    const tenant = await service.get().newTenant('author');
    const id = await deployedWorkflow(tenant);

    // Act
    const updated = await tenant.call('PUT', `/api/workflows/${id}`, {
      state: respondingWith({ 'x-note': 'a\r\nset-cookie: session=stolen' }),
    });

    // Assess
    expect(updated.status).toBe(400);
    expect(updated.body.details[0].message).toContain('"x-note" contains a line break');
  });

  it('refuses a line break in a header name with a 400', async () => {
    const tenant = await service.get().newTenant('author');
    const saved = await tenant.call('POST', '/api/workflows', {
      workspaceId: tenant.workspaceId,
      name: 'Headers',
      state: respondingWith({ 'x-a\r\nset-cookie': 'b' }),
    });
    expect(saved.status).toBe(400);
    expect(saved.body.details[0].message).toContain('contains a line break');
  });
});

describe('response block headers when a workflow runs', () => {
  it('sends the allowed headers, a JSON content type and nosniff', async () => {
    // Prepare
    const tenant = await service.get().newTenant('runner');
    const id = await deployedWorkflow(
      tenant,
      respondingWith({ 'X-Made-By': 'workflow', 'cache-control': 'no-store', 'content-language': 'fr' }),
    );

    // Act
    const answer = await tenant.call('POST', `/api/workflows/${id}/execute`, { name: 'ada' });

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-made-by')).toBe('workflow');
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('content-language')).toBe('fr');
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('refuses a header off the list that a reference makes, and sends none of it', async () => {
    // Prepare
    const tenant = await service.get().newTenant('runner');
    const id = await deployedWorkflow(
      tenant,
      respondingWith('<start.headers>', [{ name: 'headers', type: 'object', required: true }]),
    );

    // Act
    const answer = await tenant.call('POST', `/api/workflows/${id}/execute`, {
      headers: { 'set-cookie': 'session=stolen', 'x-fine': 'yes' },
    });

    // Assess
    expect(answer.status).toBe(500);
    expect(answer.body.code).toBe('EXECUTION_ERROR');
    expect(answer.body.error).toContain('"set-cookie" is not allowed');
    expect(answer.headers.get('set-cookie')).toBeNull();
    expect(answer.headers.get('x-fine')).toBeNull();
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('answers 400 naming the header, not a 500, when a reference puts a line break in a value', async () => {
    // Prepare
    const tenant = await service.get().newTenant('runner');
    const id = await deployedWorkflow(
      tenant,
      respondingWith({ 'x-note': '<start.note>' }, [{ name: 'note', type: 'string', required: true }]),
    );

    // Act
    const answer = await tenant.call('POST', `/api/workflows/${id}/execute`, {
      note: 'a\r\nset-cookie: session=stolen',
    });

    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('VALIDATION_ERROR');
    expect(answer.body.success).toBe(false);
    expect(answer.body.error).toBe('The value of response header "x-note" contains a line break');
    expect(answer.headers.get('set-cookie')).toBeNull();
    expect(answer.headers.get('x-note')).toBeNull();
  });

  it("sends nosniff on error answers, the server's own 404 and streamed runs", async () => {
    // Prepare
    const tenant = await service.get().newTenant('runner');
    const id = await deployedWorkflow(tenant);

    // Act
    const missing = await tenant.call('GET', '/api/workflows/wf_missing');
    const streamed = await fetch(`${service.get().url}/api/workflows/${id}/execute`, {
      method: 'POST',
      headers: { 'x-api-key': tenant.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'ada', stream: true }),
    });
    await streamed.text();
    const unauthenticated = await request(service.get().url, 'GET', '/api/workflows/wf_missing');
    const noRoute = await request(service.get().url, 'GET', '/api/no-such-route');

    // Assess
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-content-type-options')).toBe('nosniff');
    expect(streamed.headers.get('content-type')).toBe('text/event-stream');
    expect(streamed.headers.get('x-content-type-options')).toBe('nosniff');
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get('x-content-type-options')).toBe('nosniff');
    expect(noRoute.status).toBe(404);
    expect(noRoute.headers.get('x-content-type-options')).toBe('nosniff');
  });
});
