/**
 * Notifications on the local emulators: webhook deliveries per second to a receiver on loopback
 * (completion events published straight onto the queue, one delivery each), against plain POSTs
 * to the same receiver from this process at the same concurrency; and the delay from the end of a
 * sync run (its answer) to its delivery, against the sync run's own latency.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqsNotificationQueue } from '../adapters/sqs/notification-queue';
import { startLocalService } from '../local/service';
import { unreachableRateLimitsJson } from '../support/limits';
import { deployedWorkflow } from '../support/api-client';
import { makeClient } from '../support/service-client';
import { percentile } from './load';

export interface NotificationsBench {
  deliveries: number;
  deliveriesPerSecond: number;
  directPostsPerSecond: number;
  /** Deliveries per second over direct POSTs per second. */
  share: number;
  runs: number;
  runToDeliveryP50InMs: number;
  runToDeliveryP99InMs: number;
  syncRunP50InMs: number;
}

function post(url: string, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json' } },
      (response) => {
        response.resume();
        response.on('end', () => resolve());
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

export async function benchNotifications(
  deliveries = Number(process.env.BENCH_DELIVERIES ?? 500),
  runs = Number(process.env.BENCH_NOTIFIED_RUNS ?? 50),
): Promise<NotificationsBench> {
  const saved = { ...process.env };
  const arrivals = new Map<string, number>();
  let onArrival: (() => void) | undefined;
  const receiver: Server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk) => chunks.push(chunk));
    incoming.on('end', () => {
      try {
        const payload = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          data?: { executionId?: string };
        };
        if (payload.data?.executionId) arrivals.set(payload.data.executionId, performance.now());
      } catch {
        // Direct POSTs of the baseline carry no payload.
      }
      response.writeHead(200).end();
      onArrival?.();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  process.env.RATE_LIMITS_JSON = unreachableRateLimitsJson;
  process.env.OUTBOUND_ALLOWLIST = `127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-notifications-'));
  const service = await startLocalService({ dataDir, port: 0, adminKey: 'bench-admin-key' });
  try {
    const client = makeClient(service);
    const tenant = await client.newTenant('bench');
    const created = await tenant.call('POST', `/api/workspaces/${tenant.workspaceId}/notifications`, {
      channel: 'webhook',
      allWorkflows: true,
      levelFilter: ['info', 'error'],
      triggerFilter: ['api', 'webhook', 'schedule', 'manual', 'chat'],
      webhook: { url: `${receiverUrl}/hook`, secret: 'whsec_bench-secret' },
    });
    if (created.status !== 201) throw new Error(`Subscription not created: ${JSON.stringify(created.body)}`);

    // Baseline: the same number of POSTs straight to the receiver, 20 at a time.
    const body = JSON.stringify({ sample: true });
    const directStarted = performance.now();
    for (let sent = 0; sent < deliveries; sent += 20) {
      await Promise.all(
        Array.from({ length: Math.min(20, deliveries - sent) }, () => post(`${receiverUrl}/direct`, body)),
      );
    }
    const directPostsPerSecond = Math.round(deliveries / ((performance.now() - directStarted) / 1000));

    // Deliveries: completion events straight onto the queue.
    arrivals.clear();
    const queue = SqsNotificationQueue.fromEnv();
    const started = performance.now();
    const done = new Promise<void>((resolve) => {
      onArrival = () => {
        if (arrivals.size >= deliveries) resolve();
      };
    });
    const now = Date.now();
    await Promise.all(
      Array.from({ length: deliveries }, (_, i) =>
        queue.publishEvent({
          id: `evt_bench_${i}`,
          type: 'workflow.execution.completed',
          timestamp: now + i,
          workspaceId: tenant.workspaceId,
          workflowId: 'wf_bench',
          executionId: `exe_bench_${i}`,
          logId: `log_exe_bench_${i}`,
          level: 'info',
          trigger: 'api',
          startedAt: new Date(now).toISOString(),
          endedAt: new Date(now).toISOString(),
          totalDurationMs: 10,
          cost: { total: 0.001, tokens: { prompt: 0, completion: 0, total: 0 }, models: {} },
          files: null,
        }),
      ),
    );
    await done;
    const deliveriesPerSecond = Math.round(deliveries / ((performance.now() - started) / 1000));
    onArrival = undefined;

    // Run end to delivery, one run at a time.
    const workflowId = await deployedWorkflow(tenant);
    const delays: number[] = [];
    const syncLatencies: number[] = [];
    for (let i = 0; i < runs; i++) {
      const runStarted = performance.now();
      const answer = await tenant.call('POST', `/api/workflows/${workflowId}/execute`, { name: 'ada' });
      const answeredAt = performance.now();
      syncLatencies.push(answeredAt - runStarted);
      const executionId = answer.body.metadata.executionId as string;
      while (!arrivals.has(executionId)) await new Promise((resolve) => setTimeout(resolve, 2));
      delays.push((arrivals.get(executionId) as number) - answeredAt);
    }
    delays.sort((a, b) => a - b);
    syncLatencies.sort((a, b) => a - b);
    return {
      deliveries,
      deliveriesPerSecond,
      directPostsPerSecond,
      share: Number((deliveriesPerSecond / directPostsPerSecond).toFixed(3)),
      runs,
      runToDeliveryP50InMs: Number(percentile(delays, 0.5).toFixed(1)),
      runToDeliveryP99InMs: Number(percentile(delays, 0.99).toFixed(1)),
      syncRunP50InMs: Number(percentile(syncLatencies, 0.5).toFixed(1)),
    };
  } finally {
    await service.stop();
    await new Promise((resolve) => receiver.close(resolve));
    await rm(dataDir, { recursive: true, force: true });
    for (const name of ['POWERTOOLS_LOG_LEVEL', 'RATE_LIMITS_JSON', 'OUTBOUND_ALLOWLIST', 'ADMIN_API_KEY']) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  }
}

export function printNotificationsBench(bench: NotificationsBench): void {
  console.log('\nWebhook notifications on the local emulators, to a receiver on loopback');
  console.log(
    `  ${bench.deliveries} signed deliveries: ${bench.deliveriesPerSecond}/s (${(bench.share * 100).toFixed(1)} % of ${bench.directPostsPerSecond} plain POSTs/s from this process)`,
  );
  console.log(
    `  run answered → delivery received: p50 ${bench.runToDeliveryP50InMs} ms, p99 ${bench.runToDeliveryP99InMs} ms over ${bench.runs} runs (the sync run itself: p50 ${bench.syncRunP50InMs} ms)`,
  );
}
