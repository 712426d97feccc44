/**
 * Notifications through the compiled server: a webhook subscription to a receiver on loopback gets
 * a signed delivery when a run ends, the delivery history shows it, a test send arrives, an alert
 * rule sends when it fires; e-mail goes to the local outbox and chat to a Slack incoming webhook.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../sdk/src/index';
import { deployedWorkflow, type Tenant, threeBlockGraph } from '../../support/api-client';
import { mailContaining } from '../support/outbox';
import { until } from '../support/wait';
import { useReceiver } from './receiver';
import { useE2eService } from './service';

const service = useE2eService();
const receiver = useReceiver();
const secret = 'whsec_e2e-secret';
let counter = 0;

async function aSubscription(tenant: Tenant, path: string) {
  const created = await tenant.call('POST', `/api/workspaces/${tenant.workspaceId}/notifications`, {
    channel: 'webhook',
    allWorkflows: true,
    levelFilter: ['info', 'error'],
    triggerFilter: ['api', 'webhook', 'schedule', 'manual', 'chat'],
    includeFinalOutput: true,
    webhook: { url: `${receiver.url}${path}`, secret },
  });
  if (created.status !== 201) throw new Error(`No subscription: ${JSON.stringify(created.body)}`);
  return created.body.data;
}

describe('webhook notifications', () => {
  it('delivers a signed completion event when a run ends, and lists the delivery', async () => {
    // Prepare
    const tenant = await service.newTenant('notified');
    const path = `/runs-${++counter}`;
    const subscription = await aSubscription(tenant, path);
    const workflowId = await deployedWorkflow(tenant);

    // Act
    const run = await tenant.call('POST', `/api/workflows/${workflowId}/execute`, { name: 'ada' });
    const executionId = run.body.metadata.executionId;
    const delivery = await receiver.requestTo(path);
    // The receiver has the request a moment before the worker records its answer.
    const deliveries = await until(async () => {
      const answer = await tenant.call(
        'GET',
        `/api/workspaces/${tenant.workspaceId}/notifications/${subscription.id}/deliveries`,
      );
      return answer.body.data[0]?.status === 'pending' || answer.body.data[0]?.status === 'in_progress'
        ? undefined
        : answer;
    });

    // Assess
    expect(subscription.webhook).toMatchObject({ url: `${receiver.url}${path}`, hasSecret: true });
    expect(JSON.stringify(subscription)).not.toContain(secret);
    expect(delivery.method).toBe('POST');
    expect(JSON.parse(delivery.body)).toMatchObject({
      id: `evt_${executionId}`,
      type: 'workflow.execution.completed',
      timestamp: expect.any(Number),
      data: {
        workflowId,
        executionId,
        status: 'success',
        level: 'info',
        trigger: 'api',
        finalOutput: { shouted: 'ADA' },
      },
      links: { log: `/v1/logs/log_${executionId}`, execution: `/v1/logs/executions/${executionId}` },
    });
    expect(delivery.headers['svc-event']).toBe('workflow.execution.completed');
    expect(delivery.headers['idempotency-key']).toBe(delivery.headers['svc-delivery-id']);
    expect(verifyWebhookSignature(secret, String(delivery.headers['svc-signature']), delivery.body)).toEqual({
      valid: true,
    });
    expect(deliveries.status).toBe(200);
    expect(deliveries.body.data[0]).toMatchObject({
      eventId: `evt_${executionId}`,
      status: 'success',
      attempts: 1,
      responseStatus: 200,
    });
  });

  it('sends a sample event now on a test send', async () => {
    // Prepare
    const tenant = await service.newTenant('notified-test');
    const path = `/test-${++counter}`;
    const subscription = await aSubscription(tenant, path);

    // Act
    const sent = await tenant.call(
      'POST',
      `/api/workspaces/${tenant.workspaceId}/notifications/${subscription.id}/test`,
    );
    const delivery = await receiver.requestTo(path);

    // Assess
    expect(sent.status).toBe(202);
    expect(sent.body.data).toMatchObject({ id: expect.any(String), status: expect.any(String) });
    expect(JSON.parse(delivery.body).type).toBe('workflow.execution.completed');
    expect(
      verifyWebhookSignature(secret, String(delivery.headers['svc-signature']), delivery.body).valid,
    ).toBe(true);
  });

  it('sends an alert, not a completion, when its rule fires', async () => {
    // Prepare
    const tenant = await service.newTenant('alerted');
    const path = `/alert-${++counter}`;
    const created = await tenant.call('POST', `/api/workspaces/${tenant.workspaceId}/notifications`, {
      channel: 'webhook',
      allWorkflows: true,
      levelFilter: ['info', 'error'],
      triggerFilter: ['api'],
      webhook: { url: `${receiver.url}${path}` },
      alert: { rule: 'consecutive_failures', threshold: 1 },
    });
    const workflowId = await deployedWorkflow(
      tenant,
      threeBlockGraph({ code: 'throw new Error("disk full");' }),
    );

    // Act
    await tenant.call('POST', `/api/workflows/${workflowId}/execute`, { name: 'ada' });
    const delivery = await receiver.requestTo(path);

    // Assess
    expect(created.status).toBe(201);
    expect(delivery.headers['svc-event']).toBe('workflow.alert');
    expect(JSON.parse(delivery.body)).toMatchObject({
      type: 'workflow.alert',
      data: {
        workflowId,
        workflowName: 'Flow',
        alert: { rule: 'consecutive_failures', threshold: 1, observed: 1 },
      },
    });
  });
});

describe('e-mail and chat notifications', () => {
  it('write an e-mail about a failed run to the local outbox', async () => {
    // Prepare
    const tenant = await service.newTenant('mailed');
    const recipient = `ops-${++counter}-${Date.now()}@example.com`;
    const created = await tenant.call('POST', `/api/workspaces/${tenant.workspaceId}/notifications`, {
      channel: 'email',
      allWorkflows: true,
      levelFilter: ['error'],
      triggerFilter: ['api'],
      email: { recipients: [recipient] },
    });
    const workflowId = await deployedWorkflow(
      tenant,
      threeBlockGraph({ code: 'throw new Error("disk full");' }),
    );

    // Act
    const run = await tenant.call('POST', `/api/workflows/${workflowId}/execute`, { name: 'ada' });
    const message = await mailContaining(join(service.dataDir, 'outbox', 'email'), recipient, 20_000);

    // Assess
    expect(created.status).toBe(201);
    expect(message).toMatch(new RegExp(`^To: ${recipient}\\r?$`, 'm'));
    expect(message).toContain(`log_${run.body.metadata.executionId}`);
    expect(message).toContain('disk full');
  });

  it('post a message about a run to a Slack incoming webhook', async () => {
    // Prepare
    const tenant = await service.newTenant('chatty');
    const path = `/slack-${++counter}`;
    const created = await tenant.call('POST', `/api/workspaces/${tenant.workspaceId}/notifications`, {
      channel: 'chat',
      allWorkflows: true,
      levelFilter: ['info'],
      triggerFilter: ['api'],
      chat: { webhookUrl: `${receiver.url}${path}` },
    });
    const workflowId = await deployedWorkflow(tenant);

    // Act
    const run = await tenant.call('POST', `/api/workflows/${workflowId}/execute`, { name: 'ada' });
    const message = await receiver.requestTo(path);

    // Assess
    expect(created.status).toBe(201);
    expect(message.method).toBe('POST');
    expect(message.body).toContain(run.body.metadata.executionId);
  });
});

describe('notification subscriptions', () => {
  it('takes every level and trigger when the filters are left out', async () => {
    // Prepare
    const tenant = await service.newTenant('notified-defaults');

    // Act
    const answer = await tenant.call('POST', `/api/workspaces/${tenant.workspaceId}/notifications`, {
      channel: 'webhook',
      allWorkflows: true,
      webhook: { url: `${receiver.url}/never` },
    });

    // Assess
    expect(answer.status).toBe(201);
    expect(answer.body.data.levelFilter).toEqual(expect.arrayContaining(['info', 'error']));
    expect(answer.body.data.triggerFilter).toEqual(expect.arrayContaining(['api', 'webhook', 'schedule']));
  });
});
