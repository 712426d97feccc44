import { describe, expect, it } from 'vitest';
import { routes } from '../../../catalog/routes';
import { request, useLocalService } from '../../support/service';

const service = useLocalService();

describe('service endpoints', () => {
  it('answers health with status ok', async () => {
    const answer = await request(service.get().url, 'GET', '/api/health');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ status: 'ok' });
  });

  it('publishes every route of the route table in the OpenAPI document', async () => {
    const answer = await request(service.get().url, 'GET', '/api/openapi.json');
    expect(answer.status).toBe(200);
    expect(answer.body.openapi).toBe('3.1.0');
    for (const route of routes) {
      const operation = answer.body.paths[route.path]?.[route.method.toLowerCase()];
      expect(operation?.operationId, route.id).toBe(route.id);
      // Who may call it, as the route table declares.
      expect(operation?.['x-permission'], route.id).toBe(route.permission);
    }
    expect(answer.body.components.schemas.WorkflowGraph).toBeDefined();
    // The limits a client meets: 429 (with Retry-After) wherever a token is drawn, 402 on executions
    const execute = answer.body.paths['/api/workflows/{workflowId}/execute'].post;
    expect(Object.keys(execute.responses)).toEqual(expect.arrayContaining(['402', '429']));
    expect(Object.keys(execute.responses['429'].headers)).toEqual([
      'Retry-After',
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
    ]);
    expect(Object.keys(answer.body.paths['/api/workflows'].get.responses)).toContain('429');
    expect(Object.keys(answer.body.paths['/api/health'].get.responses)).not.toContain('429');
    // Saves and deploys may carry the saver's permission-group warnings beside `data`.
    const saves = [
      answer.body.paths['/api/workflows'].post.responses['201'],
      answer.body.paths['/api/workflows/{workflowId}'].put.responses['200'],
      answer.body.paths['/api/workflows/{workflowId}/deploy'].post.responses['200'],
    ];
    for (const saved of saves) {
      const body = saved.content['application/json'].schema;
      expect(body.properties.warnings.items.required).toEqual(
        expect.arrayContaining(['blockId', 'blockName', 'blockType', 'kind', 'message']),
      );
      expect(body.required).toEqual(['data']);
    }
  });

  it('answers an unknown path with 404 NOT_FOUND in the error shape', async () => {
    const answer = await request(service.get().url, 'GET', '/api/nothing-here');
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ error: 'No route for GET /api/nothing-here', code: 'NOT_FOUND' });
  });

  it('answers a known path with the wrong method with 404, as API Gateway does', async () => {
    const answer = await request(service.get().url, 'PATCH', '/api/health');
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ error: 'No route for PATCH /api/health', code: 'NOT_FOUND' });
  });

  it('refuses a JSON body over 10 MB with 413', async () => {
    const answer = await request(service.get().url, 'POST', '/api/v1/admin/users', {
      headers: { 'x-admin-key': service.get().service.adminKey },
      rawBody: JSON.stringify({ email: 'big@example.com', name: 'x'.repeat(10 * 1024 * 1024 + 10) }),
    });
    expect(answer.status).toBe(413);
    expect(answer.body.code).toBe('PAYLOAD_TOO_LARGE');
  });
});
