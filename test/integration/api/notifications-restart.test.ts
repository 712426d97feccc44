/**
 * A delivery waiting for its next attempt survives a restart: the first attempt fails, the service
 * stops, and the service started again on the same data dir makes the second attempt when the
 * queue makes the message visible again.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalService } from '../../../local/service';
import { makeClient } from '../../support/service';
import { until } from '../../support/wait';

let receiver: Server;
let receiverUrl: string;
let dataDir: string;
let status = 503;
const received: Array<{ headers: IncomingHttpHeaders; body: string; at: number }> = [];

beforeAll(async () => {
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  dataDir = await mkdtemp(join(tmpdir(), 'notifications-restart-'));
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      });
      response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const { port } = receiver.address() as AddressInfo;
  receiverUrl = `http://127.0.0.1:${port}/hook`;
  process.env.OUTBOUND_ALLOWLIST = `127.0.0.1:${port}`;
});

afterAll(async () => {
  delete process.env.OUTBOUND_ALLOWLIST;
  await new Promise((resolve) => receiver.close(resolve));
  await rm(dataDir, { recursive: true, force: true });
});

describe('a delivery across a restart', () => {
  it('is attempted again by the next process, with the same delivery id and body', async () => {
    // Prepare: a subscription, and a first attempt that fails
    const first = await startLocalService({ dataDir, port: 0, adminKey: 'restart-admin-key' });
    const client = makeClient(first);
    const tenant = await client.newTenant('restart');
    const created = await tenant.call('POST', `/api/workspaces/${tenant.workspaceId}/notifications`, {
      channel: 'webhook',
      allWorkflows: true,
      levelFilter: ['info', 'error'],
      triggerFilter: ['manual'],
      webhook: { url: receiverUrl },
    });
    await tenant.call(
      'POST',
      `/api/workspaces/${tenant.workspaceId}/notifications/${created.body.data.id}/test`,
    );
    const failed = await until(() => received[0], 10_000);

    // Act: stop before the retry is due, then start again on the same data dir
    await first.stop();
    status = 200;
    const second = await startLocalService({ dataDir, port: 0, adminKey: 'restart-admin-key' });
    try {
      const retried = await until(() => received[1], 20_000);

      // Assess
      expect(retried.at - failed.at).toBeGreaterThanOrEqual(5_000);
      expect(retried.headers['svc-delivery-id']).toBe(failed.headers['svc-delivery-id']);
      expect(retried.body).toBe(failed.body);
      const again = makeClient(second).as(tenant.apiKey);
      const deadline = Date.now() + 5_000;
      let history = await again(
        'GET',
        `/api/workspaces/${tenant.workspaceId}/notifications/${created.body.data.id}/deliveries`,
      );
      while (history.body.data[0]?.status !== 'success' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        history = await again(
          'GET',
          `/api/workspaces/${tenant.workspaceId}/notifications/${created.body.data.id}/deliveries`,
        );
      }
      expect(history.body.data[0]).toMatchObject({ status: 'success', attempts: 2 });
    } finally {
      await second.stop();
    }
  }, 45_000);
});
