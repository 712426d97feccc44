/**
 * Webhook triggers through the compiled server: created, called without and with a secret (signed
 * and bearer), each call a queued run with trigger webhook; refused calls.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type Answer, deployedWorkflow, finishedJob, request, type Tenant } from '../../support/api-client';
import { useE2eService } from './service';

const service = useE2eService();

async function aWebhook(tenant: Tenant, secret?: string) {
  const workflowId = await deployedWorkflow(tenant);
  const created = await tenant.call(
    'POST',
    `/api/workflows/${workflowId}/webhooks`,
    secret ? { secret } : {},
  );
  if (created.status !== 201) throw new Error(`No webhook: ${JSON.stringify(created.body)}`);
  return { workflowId, webhook: created.body.data };
}

function call(path: string, body: string, headers: Record<string, string> = {}): Promise<Answer> {
  return request(service.url, 'POST', `/api/webhooks/trigger/${path}`, { headers, rawBody: body });
}

function signed(secret: string, body: string, t = Date.now()): Record<string, string> {
  const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
  return { 'svc-signature': `t=${t},v1=${v1}` };
}

describe('webhook triggers', () => {
  it('creates a trigger whose call queues a run logged with trigger webhook', async () => {
    // Prepare
    const tenant = await service.newTenant('hook');
    const { workflowId, webhook } = await aWebhook(tenant);

    // Act
    const called = await call(webhook.path, JSON.stringify({ name: 'ada' }));
    const job = await finishedJob(tenant, called.body.taskId);
    const listed = await tenant.call('GET', `/api/workflows/${workflowId}/webhooks`);
    const logged = await tenant.call(
      'GET',
      `/api/v1/logs?workspaceId=${tenant.workspaceId}&executionId=${called.body.taskId}`,
    );

    // Assess
    expect(webhook).toMatchObject({
      id: expect.any(String),
      path: expect.any(String),
      url: `${service.url}/api/webhooks/trigger/${webhook.path}`,
      hasSecret: false,
    });
    expect(called.status).toBe(202);
    expect(called.body).toMatchObject({
      success: true,
      status: 'queued',
      links: { status: `/api/jobs/${called.body.taskId}` },
    });
    expect(job.body).toMatchObject({ status: 'completed', output: { shouted: 'ADA' } });
    expect(listed.body.data).toEqual([expect.objectContaining({ id: webhook.id })]);
    expect(logged.body.data).toEqual([expect.objectContaining({ trigger: 'webhook', level: 'info' })]);
  });

  it('admits a call signed with the secret, or with the secret as a bearer token', async () => {
    // Prepare
    const tenant = await service.newTenant('hook-secret');
    const secret = 'a long random secret';
    const { webhook } = await aWebhook(tenant, secret);
    const body = JSON.stringify({ name: 'grace' });

    // Act
    const bySignature = await call(webhook.path, body, signed(secret, body));
    const byBearer = await call(webhook.path, body, { authorization: `Bearer ${secret}` });
    const job = await finishedJob(tenant, bySignature.body.taskId);

    // Assess
    expect(webhook.hasSecret).toBe(true);
    expect(bySignature.status).toBe(202);
    expect(byBearer.status).toBe(202);
    expect(job.body).toMatchObject({ status: 'completed', output: { shouted: 'GRACE' } });
  });

  it('refuses an unsigned, a wrongly signed and a stale call with 401, and an unknown path with 404', async () => {
    // Prepare
    const tenant = await service.newTenant('hook-refused');
    const secret = 'a long random secret';
    const { webhook } = await aWebhook(tenant, secret);
    const body = JSON.stringify({ name: 'ada' });

    // Act
    const unsigned = await call(webhook.path, body);
    const wrong = await call(webhook.path, body, signed('another secret', body));
    const stale = await call(webhook.path, body, signed(secret, body, Date.now() - 6 * 60_000));
    const unknown = await call('no-such-webhook-path', body);

    // Assess
    for (const answer of [unsigned, wrong, stale]) {
      expect(answer.status).toBe(401);
      expect(answer.body.code).toBe('UNAUTHORIZED');
    }
    expect(stale.body.error).toContain('5 minutes');
    expect(unknown.status).toBe(404);
  });

  it('refuses a call without a required input with 400 naming it', async () => {
    // Prepare
    const tenant = await service.newTenant('hook-input');
    const { webhook } = await aWebhook(tenant);

    // Act
    const answer = await call(webhook.path, '{}');

    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('VALIDATION_ERROR');
    expect(answer.body.details[0].path).toBe('name');
  });
});
