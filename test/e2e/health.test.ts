/** The routes without a key: health, the OpenAPI document, and what an unknown path gets. */
import { describe, expect, it } from 'vitest';
import { request } from '../../support/api-client';
import { useE2eService } from './service';

const service = useE2eService();

describe('health', () => {
  it('answers 200 {status: ok} as JSON', async () => {
    // Act
    const answer = await request(service.url, 'GET', '/api/health');

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toContain('application/json');
    expect(answer.body).toEqual({ status: 'ok' });
  });
});

describe('the OpenAPI document', () => {
  it('describes every route family as OpenAPI 3.1', async () => {
    // Act
    const answer = await request(service.url, 'GET', '/api/openapi.json');

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.body.openapi).toMatch(/^3\.1\./);
    expect(Object.keys(answer.body.paths)).toEqual(
      expect.arrayContaining([
        '/api/health',
        '/api/workflows/{workflowId}/execute',
        '/api/jobs/{taskId}',
        '/api/v1/logs',
        '/api/files/upload-url',
        '/api/form/{identifier}',
        '/api/webhooks/trigger/{path}',
        '/api/workflows/{workflowId}/schedule',
        '/api/workspaces/{workspaceId}/notifications',
        '/api/users/me/usage-limits',
        '/api/v1/admin/organizations',
        '/api/organizations/{orgId}/permission-groups',
      ]),
    );
  });
});

describe('unknown routes', () => {
  it('answers 404 NOT_FOUND for a path no route has', async () => {
    // Act
    const answer = await request(service.url, 'GET', '/api/no-such-route');

    // Assess
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ code: 'NOT_FOUND', error: expect.any(String) });
  });
});
