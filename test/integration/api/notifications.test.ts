/**
 * Webhook notifications on the local emulators, with a real receiver on loopback let through by
 * OUTBOUND_ALLOWLIST: subscriptions, the payload and headers field by field, the signature checked
 * by a receiver written from the interface's Signature section alone, filters and include flags,
 * a failing receiver's attempts, and the delivery history.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../../core/webhooks/signature';
import { deployedWorkflow, type Tenant, threeBlockGraph, useLocalService } from '../../support/service';
import { decodeQuotedPrintable, filesIn } from '../../support/outbox';
import { until } from '../../support/wait';

process.env.RATE_LIMITS_JSON = JSON.stringify({
  free: {
    api: { requestsPerMinute: 60_000, maxBurst: 60_000 },
    sync: { requestsPerMinute: 60_000, maxBurst: 60_000 },
  },
});

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

const received: Received[] = [];
/** Status the receiver answers per path (200 unless set). */
const answers = new Map<string, number>();
let receiver: Server;
let receiverUrl: string;

beforeAll(async () => {
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      received.push({
        path,
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      });
      response.writeHead(answers.get(path) ?? 200, { 'content-type': 'text/plain' }).end('thanks');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const { port } = receiver.address() as AddressInfo;
  receiverUrl = `http://127.0.0.1:${port}`;
  process.env.OUTBOUND_ALLOWLIST = `127.0.0.1:${port}`;
  process.env.SLACK_API_URL = `${receiverUrl}/slack-api`;
  process.env.PUBLIC_BASE_URL = 'https://flows.example.com';
});

afterAll(async () => {
  delete process.env.OUTBOUND_ALLOWLIST;
  delete process.env.SLACK_API_URL;
  delete process.env.PUBLIC_BASE_URL;
  await new Promise((resolve) => receiver.close(resolve));
});

const service = useLocalService();

/** A receiver written from the interface alone: HMAC-SHA256 over `<t>.<body>`, constant time, 5 minutes. */
function independentlyVerified(
  secret: string,
  headers: IncomingHttpHeaders,
  body: string,
  nowInMs: number,
): boolean {
  const header = String(headers['svc-signature'] ?? '');
  const parts = Object.fromEntries(header.split(',').map((part) => part.split('=') as [string, string]));
  if (!parts.t || !parts.v1) return false;
  if (Math.abs(nowInMs - Number(parts.t)) > 5 * 60 * 1000) return false;
  const expected = createHmac('sha256', secret).update(`${parts.t}.${body}`).digest();
  const given = Buffer.from(parts.v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

async function subscribe(tenant: Tenant, path: string, fields: Record<string, unknown> = {}) {
  const answer = await tenant.call('POST', `/api/workspaces/${tenant.workspaceId}/notifications`, {
    channel: 'webhook',
    allWorkflows: true,
    levelFilter: ['info', 'error'],
    triggerFilter: ['api', 'webhook', 'schedule', 'manual', 'chat'],
    webhook: { url: `${receiverUrl}${path}` },
    ...fields,
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body.data;
}

describe('webhook notifications', () => {
  it('deliver the completion of a run with the payload and headers of the interface, signed', async () => {
    // Prepare
    const tenant = await service.get().newTenant('notified');
    const secret = 'whsec_a-long-enough-secret';
    const subscription = await subscribe(tenant, '/signed', {
      webhook: { url: `${receiverUrl}/signed`, secret },
    });
    const workflowId = await deployedWorkflow(tenant);

    // Act
    const run = await tenant.call('POST', `/api/workflows/${workflowId}/execute`, { name: 'ada' });
    const delivery = await until(() => received.find((entry) => entry.path === '/signed'));

    // Assess
    const executionId = run.body.metadata.executionId;
    const payload = JSON.parse(delivery.body);
    expect(payload).toEqual({
      id: `evt_${executionId}`,
      type: 'workflow.execution.completed',
      timestamp: expect.any(Number),
      data: {
        workflowId,
        executionId,
        status: 'success',
        level: 'info',
        trigger: 'api',
        startedAt: expect.any(String),
        endedAt: expect.any(String),
        totalDurationMs: expect.any(Number),
        cost: expect.objectContaining({ total: expect.any(Number), tokens: expect.any(Object), models: {} }),
        files: null,
      },
      links: { log: `/v1/logs/log_${executionId}`, execution: `/v1/logs/executions/${executionId}` },
    });
    expect(delivery.headers['svc-event']).toBe('workflow.execution.completed');
    expect(delivery.headers['svc-delivery-id']).toMatch(/^dlv_[0-9a-f]{32}$/);
    expect(delivery.headers['idempotency-key']).toBe(delivery.headers['svc-delivery-id']);
    expect(Number(delivery.headers['svc-timestamp'])).toBeGreaterThan(Date.now() - 60_000);
    expect(delivery.headers['svc-signature']).toBe(
      `t=${delivery.headers['svc-timestamp']},v1=${createHmac('sha256', secret).update(`${delivery.headers['svc-timestamp']}.${delivery.body}`).digest('hex')}`,
    );
    expect(independentlyVerified(secret, delivery.headers, delivery.body, Date.now())).toBe(true);
    expect(
      verifyWebhookSignature(secret, String(delivery.headers['svc-signature']), delivery.body, Date.now()),
    ).toEqual({
      valid: true,
    });
    const deliveries = await tenant.call(
      'GET',
      `/api/workspaces/${tenant.workspaceId}/notifications/${subscription.id}/deliveries`,
    );
    expect(deliveries.body.data[0]).toMatchObject({
      eventId: `evt_${executionId}`,
      status: 'success',
      attempts: 1,
      responseStatus: 200,
    });
  });

  it("answer the delivery's links as they are written, with the log entry and the execution detail", async () => {
    // Prepare
    const tenant = await service.get().newTenant('linked');
    await subscribe(tenant, '/linked');
    const workflowId = await deployedWorkflow(tenant);
    await tenant.call('POST', `/api/workflows/${workflowId}/execute`, { name: 'ada' });
    const delivery = await until(() => received.find((entry) => entry.path === '/linked'));
    const { links } = JSON.parse(delivery.body);

    // Act
    const log = await tenant.call('GET', links.log);
    const direct = await tenant.call('GET', `/api${links.log}`);
    const execution = await tenant.call('GET', links.execution);
    const stranger = await (await service.get().newTenant('stranger')).call('GET', links.log);

    // Assess
    expect(log.status).toBe(200);
    // The same entry; only the limits block's clock-dependent resetAt may differ between two reads.
    const entryOf = ({ limits: _limits, ...entry }: Record<string, unknown>) => entry;
    expect(entryOf(log.body.data)).toEqual(entryOf(direct.body.data));
    expect(log.body.data.limits).toBeDefined();
    expect(log.body.data.executionData.finalOutput).toEqual({ shouted: 'ADA' });
    expect(execution.status).toBe(200);
    expect(execution.body.workflowId).toBe(workflowId);
    expect(stranger.status).toBe(404);
  });

  it('a receiver from the interface rejects a tampered body, a wrong secret and a stale timestamp', async () => {
    // Prepare
    const secret = 'whsec_receiver-check';
    const tenant = await service.get().newTenant('verify');
    const subscription = await subscribe(tenant, '/verify', {
      webhook: { url: `${receiverUrl}/verify`, secret },
    });

    // Act
    await tenant.call('POST', `/api/workspaces/${tenant.workspaceId}/notifications/${subscription.id}/test`);
    const delivery = await until(() => received.find((entry) => entry.path === '/verify'));

    // Assess
    expect(independentlyVerified(secret, delivery.headers, delivery.body, Date.now())).toBe(true);
    expect(independentlyVerified(secret, delivery.headers, `${delivery.body} `, Date.now())).toBe(false);
    expect(independentlyVerified('whsec_wrong-secret', delivery.headers, delivery.body, Date.now())).toBe(
      false,
    );
    expect(independentlyVerified(secret, delivery.headers, delivery.body, Date.now() + 6 * 60 * 1000)).toBe(
      false,
    );
    const header = String(delivery.headers['svc-signature']);
    expect(verifyWebhookSignature(secret, header, `${delivery.body} `, Date.now()).valid).toBe(false);
    expect(verifyWebhookSignature('whsec_wrong-secret', header, delivery.body, Date.now()).valid).toBe(false);
    expect(verifyWebhookSignature(secret, header, delivery.body, Date.now() + 6 * 60 * 1000).valid).toBe(
      false,
    );
  });

  it('honour the level and trigger filters and the include flags', async () => {
    // Prepare
    const tenant = await service.get().newTenant('filtered');
    await subscribe(tenant, '/errors-only', { levelFilter: ['error'] });
    await subscribe(tenant, '/manual-only', { triggerFilter: ['manual'] });
    await subscribe(tenant, '/with-output', {
      includeFinalOutput: true,
      includeTraceSpans: true,
      includeRateLimits: true,
      includeUsageData: true,
    });
    const workflowId = await deployedWorkflow(tenant);

    // Act
    const run = await tenant.call('POST', `/api/workflows/${workflowId}/execute`, { name: 'ada' });
    const withOutput = await until(() =>
      received.find(
        (entry) => entry.path === '/with-output' && entry.body.includes(run.body.metadata.executionId),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 500));

    // Assess
    const data = JSON.parse(withOutput.body).data;
    expect(data.finalOutput).toEqual({ shouted: 'ADA' });
    expect(data.traceSpans[0].type).toBe('workflow');
    expect(data.rateLimits.sync).toMatchObject({
      requestsPerMinute: 60_000,
      maxBurst: 60_000,
      remaining: expect.any(Number),
    });
    expect(data.rateLimits.async).toMatchObject({ requestsPerMinute: expect.any(Number) });
    expect(data.usage).toMatchObject({ plan: 'free', limit: expect.any(Number), isExceeded: false });
    expect(
      received.filter((entry) => entry.path === '/errors-only' || entry.path === '/manual-only'),
    ).toEqual([]);
  });

  it('try a 500 again when the queue makes the message visible 5 s later, then succeed', async () => {
    // Prepare: the receiver fails the first attempt only
    const tenant = await service.get().newTenant('retried');
    answers.set('/flaky', 500);
    const subscription = await subscribe(tenant, '/flaky');

    // Act
    await tenant.call('POST', `/api/workspaces/${tenant.workspaceId}/notifications/${subscription.id}/test`);
    const first = await until(() => received.find((entry) => entry.path === '/flaky'));
    answers.set('/flaky', 200);
    const second = await until(() => received.filter((entry) => entry.path === '/flaky')[1], 20_000);
    const history = await tenant.call(
      'GET',
      `/api/workspaces/${tenant.workspaceId}/notifications/${subscription.id}/deliveries`,
    );

    // Assess
    expect(second.at - first.at).toBeGreaterThanOrEqual(5_000);
    expect(second.headers['svc-delivery-id']).toBe(first.headers['svc-delivery-id']);
    expect(second.body).toBe(first.body);
    const deadline = Date.now() + 5_000;
    let data = history.body.data[0];
    while (data?.status !== 'success' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      data = (
        await tenant.call(
          'GET',
          `/api/workspaces/${tenant.workspaceId}/notifications/${subscription.id}/deliveries`,
        )
      ).body.data[0];
    }
    expect(data).toMatchObject({ status: 'success', attempts: 2, responseStatus: 200 });
    expect(data.history.map((attempt: { responseStatus: number }) => attempt.responseStatus)).toEqual([
      500, 200,
    ]);
  }, 30_000);

  it('do not retry an answer of 400, and record the attempt', async () => {
    // Prepare
    const tenant = await service.get().newTenant('refused');
    answers.set('/bad-request', 400);
    const subscription = await subscribe(tenant, '/bad-request');

    // Act
    await tenant.call('POST', `/api/workspaces/${tenant.workspaceId}/notifications/${subscription.id}/test`);
    const failed = await (async () => {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const answer = await tenant.call(
          'GET',
          `/api/workspaces/${tenant.workspaceId}/notifications/${subscription.id}/deliveries`,
        );
        if (answer.body.data[0]?.status === 'failed' || Date.now() > deadline) return answer.body.data[0];
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();

    // Assess
    expect(failed).toMatchObject({
      status: 'failed',
      attempts: 1,
      responseStatus: 400,
      responseExcerpt: 'thanks',
    });
    expect(received.filter((entry) => entry.path === '/bad-request')).toHaveLength(1);
  });
});

describe('alert rules', () => {
  it('send workflow.alert when consecutive failures reach the threshold, and nothing before', async () => {
    // Prepare
    const tenant = await service.get().newTenant('alerting');
    const secret = 'whsec_alert-secret';
    await subscribe(tenant, '/alerts', {
      levelFilter: ['error'],
      triggerFilter: ['api'],
      alert: { rule: 'consecutive_failures', threshold: 2 },
      webhook: { url: `${receiverUrl}/alerts`, secret },
    });
    const workflowId = await deployedWorkflow(
      tenant,
      threeBlockGraph({ code: 'throw new Error("broken");' }),
    );

    // Act
    await tenant.call('POST', `/api/workflows/${workflowId}/execute`, { name: 'ada' });
    await new Promise((resolve) => setTimeout(resolve, 700));
    const afterOne = received.filter((entry) => entry.path === '/alerts').length;
    const second = await tenant.call('POST', `/api/workflows/${workflowId}/execute`, { name: 'ada' });
    const alert = await until(() => received.find((entry) => entry.path === '/alerts'));

    // Assess
    expect(afterOne).toBe(0);
    expect(alert.headers['svc-event']).toBe('workflow.alert');
    expect(independentlyVerified(secret, alert.headers, alert.body, Date.now())).toBe(true);
    expect(JSON.parse(alert.body)).toMatchObject({
      type: 'workflow.alert',
      data: {
        workflowId,
        workflowName: 'Flow',
        alert: { rule: 'consecutive_failures', threshold: 2, observed: 2 },
        execution: { executionId: second.body.metadata.executionId, status: 'error' },
      },
    });
  });
});

describe('e-mail and chat notifications', () => {
  it('write an RFC 822 e-mail with the facts of a failed run to the local outbox', async () => {
    // Prepare
    const tenant = await service.get().newTenant('mailed');
    const outbox = join(service.get().service.dataDir, 'outbox', 'email');
    const before = new Set(await filesIn(outbox));
    const created = await tenant.call('POST', `/api/workspaces/${tenant.workspaceId}/notifications`, {
      channel: 'email',
      allWorkflows: true,
      levelFilter: ['error'],
      triggerFilter: ['api'],
      email: { recipients: ['ops@example.com', 'lead@example.com'] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const workflowId = await deployedWorkflow(
      tenant,
      threeBlockGraph({ code: 'throw new Error("disk full");' }),
    );

    // Act
    const run = await tenant.call('POST', `/api/workflows/${workflowId}/execute`, { name: 'ada' });
    const file = await until(async () => (await filesIn(outbox)).find((path) => !before.has(path)));
    const raw = await readFile(file, 'utf8');
    const message = decodeQuotedPrintable(raw);

    // Assess
    expect(message).toMatch(/^To: ops@example.com, lead@example.com\r?$/m);
    // RFC 2047 encodes the quotes around the name.
    expect(raw).toMatch(/^Subject: =\?UTF-8\?Q\?Workflow_=22Flow=22_failed\?=\r?$/m);
    expect(message).toMatch(/^MIME-Version: 1.0\r?$/m);
    expect(message).toContain('Trigger: api');
    expect(message).toContain(`https://flows.example.com/api/v1/logs/log_${run.body.metadata.executionId}`);
    expect(message).toContain('disk full');
  });

  it('post a Slack message to an incoming webhook, and with a token to chat.postMessage', async () => {
    // Prepare
    const tenant = await service.get().newTenant('chatty');
    for (const chat of [
      { webhookUrl: `${receiverUrl}/slack-hook` },
      { channel: '#ops', token: 'xoxb-test-token' },
    ]) {
      const created = await tenant.call('POST', `/api/workspaces/${tenant.workspaceId}/notifications`, {
        channel: 'chat',
        allWorkflows: true,
        levelFilter: ['info'],
        triggerFilter: ['api'],
        chat,
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(JSON.stringify(created.body)).not.toContain('xoxb-test-token');
    }
    const workflowId = await deployedWorkflow(tenant);

    // Act
    const run = await tenant.call('POST', `/api/workflows/${workflowId}/execute`, { name: 'ada' });
    const hook = await until(() =>
      received.find(
        (entry) => entry.path === '/slack-hook' && entry.body.includes(run.body.metadata.executionId),
      ),
    );
    const api = await until(() =>
      received.find(
        (entry) =>
          entry.path === '/slack-api/chat.postMessage' && entry.body.includes(run.body.metadata.executionId),
      ),
    );

    // Assess
    const message = JSON.parse(hook.body);
    expect(message.text).toBe('Workflow "Flow" succeeded');
    expect(message.attachments[0]).toMatchObject({
      color: '#2eb67d',
      title: `Execution ${run.body.metadata.executionId}`,
    });
    expect(message.attachments[0].fields.map((field: { title: string }) => field.title)).toEqual([
      'Status',
      'Trigger',
      'Duration',
      'Cost',
      'Log',
    ]);
    expect(message.channel).toBeUndefined();
    expect(api.headers.authorization).toBe('Bearer xoxb-test-token');
    expect(JSON.parse(api.body).channel).toBe('#ops');
  });

  it('write a chat message whose endpoint cannot be reached to the local outbox', async () => {
    // Prepare: a private address the allowlist does not name
    const tenant = await service.get().newTenant('unreachable');
    const outbox = join(service.get().service.dataDir, 'outbox', 'chat');
    const before = new Set(await filesIn(outbox));
    const created = await tenant.call('POST', `/api/workspaces/${tenant.workspaceId}/notifications`, {
      channel: 'chat',
      allWorkflows: true,
      levelFilter: ['info'],
      triggerFilter: ['manual'],
      chat: { webhookUrl: 'http://10.1.2.3/hook' },
    });

    // Act
    await tenant.call(
      'POST',
      `/api/workspaces/${tenant.workspaceId}/notifications/${created.body.data.id}/test`,
    );
    const file = await until(async () => (await filesIn(outbox)).find((path) => !before.has(path)));

    // Assess
    const message = JSON.parse(await readFile(file, 'utf8'));
    expect(message.text).toMatch(/succeeded$/);
    expect(message.attachments[0].color).toBe('#2eb67d');
  });
});

describe('notification subscriptions', () => {
  it('never answer the secret, and refuse a channel without its settings with a 400 naming them', async () => {
    // Prepare
    const tenant = await service.get().newTenant('subscriptions');
    const created = await subscribe(tenant, '/x', {
      webhook: { url: `${receiverUrl}/x`, secret: 'whsec_hidden-secret' },
    });

    // Act
    const listed = await tenant.call('GET', `/api/workspaces/${tenant.workspaceId}/notifications`);
    const email = await tenant.call('POST', `/api/workspaces/${tenant.workspaceId}/notifications`, {
      channel: 'email',
      allWorkflows: true,
      levelFilter: ['error'],
      triggerFilter: ['api'],
    });
    const stranger = await service.get().newTenant('stranger');
    const foreign = await stranger.call(
      'GET',
      `/api/workspaces/${tenant.workspaceId}/notifications/${created.id}`,
    );

    // Assess
    expect(created.webhook).toEqual({ url: `${receiverUrl}/x`, hasSecret: true });
    expect(JSON.stringify(listed.body)).not.toContain('whsec_hidden-secret');
    expect(email.status).toBe(400);
    expect(email.body.details[0].path).toBe('email');
    expect(foreign.status).toBe(404);
  });

  it('receive every trigger and level when the body leaves out triggerFilter and levelFilter', async () => {
    // Prepare
    const tenant = await service.get().newTenant('defaults');

    // Act
    const created = await tenant.call('POST', `/api/workspaces/${tenant.workspaceId}/notifications`, {
      channel: 'webhook',
      allWorkflows: true,
      webhook: { url: `${receiverUrl}/defaults` },
    });

    // Assess
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data.levelFilter).toEqual(['info', 'error']);
    expect(created.body.data.triggerFilter).toEqual(['api', 'webhook', 'schedule', 'manual', 'chat', 'form']);
  });

  it('refuse a webhook URL the outbound guard would refuse, at creation and update, with a 400 naming OUTBOUND_ALLOWLIST', async () => {
    // Prepare: loopback on a port the allowlist does not name
    const tenant = await service.get().newTenant('guarded');
    const path = `/api/workspaces/${tenant.workspaceId}/notifications`;
    const existing = await subscribe(tenant, '/kept');
    const refusedUrl = 'http://127.0.0.1:1/hook';

    // Act
    const created = await tenant.call('POST', path, {
      channel: 'webhook',
      allWorkflows: true,
      webhook: { url: refusedUrl },
    });
    const updated = await tenant.call('PUT', `${path}/${existing.id}`, {
      channel: 'webhook',
      allWorkflows: true,
      webhook: { url: 'http://[::1]/hook' },
    });
    const listed = await tenant.call('GET', path);

    // Assess
    expect(created.status).toBe(400);
    expect(created.body.code).toBe('VALIDATION_ERROR');
    expect(created.body.error).toContain('OUTBOUND_ALLOWLIST');
    expect(created.body.details).toEqual([
      { path: 'webhook.url', message: expect.stringContaining('loopback') },
    ]);
    expect(updated.status).toBe(400);
    expect(updated.body.details[0].path).toBe('webhook.url');
    expect(
      listed.body.data.map((subscription: { webhook: { url: string } }) => subscription.webhook.url),
    ).toEqual([`${receiverUrl}/kept`]);
  });
});
