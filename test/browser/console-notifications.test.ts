/**
 * The console's notifications in headless Chromium: a webhook subscription made in the page, a test
 * delivery to a receiver on loopback (let through by OUTBOUND_ALLOWLIST), its delivery record.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useBrowser } from '../support/browser';
import { consoleScreenshot, consoleUrlOf, signedIn, patience } from '../support/console';
import { useLocalService } from '../support/service';

const received: { path: string; headers: IncomingHttpHeaders; body: string }[] = [];
let receiver: Server;
let receiverUrl: string;

beforeAll(async () => {
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        path: request.url ?? '/',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      response.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  process.env.OUTBOUND_ALLOWLIST = `127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});

afterAll(async () => {
  delete process.env.OUTBOUND_ALLOWLIST;
  await new Promise((resolve) => receiver.close(resolve));
});

const service = useLocalService();
const browser = useBrowser();

describe('console notifications', () => {
  it('creates a webhook notification, sends a test delivery to the receiver, and shows the delivery', async () => {
    // Prepare
    const tenant = await service.get().newTenant('console-notify');
    const page = await browser.page({ viewport: { width: 1280, height: 900 } });
    await signedIn(
      page,
      consoleUrlOf(service.get().url),
      tenant.apiKey,
      `#/w/${tenant.workspaceId}/notifications`,
    );

    // Act: create
    await page.getByRole('button', { name: 'New notification' }).click();
    await page.getByLabel('Webhook URL').fill(`${receiverUrl}/runs`);
    await page.getByLabel(/^Signing secret/).fill('whsec_console-secret');
    await page.getByLabel('Error', { exact: true }).check();
    await consoleScreenshot(page, 'notifications-new');
    await page.getByRole('button', { name: 'Create' }).click();

    // Assess
    const row = page.getByRole('row', { name: /webhook/ });
    await expect.poll(() => row.innerText(), patience).toContain(`${receiverUrl}/runs (signed)`);
    const stored = await tenant.call('GET', `/api/workspaces/${tenant.workspaceId}/notifications`);
    expect(stored.body.data).toEqual([
      expect.objectContaining({
        channel: 'webhook',
        allWorkflows: true,
        levelFilter: ['error'],
        webhook: { url: `${receiverUrl}/runs`, hasSecret: true },
      }),
    ]);

    // Act: send a test
    await row.getByRole('button', { name: 'Send test' }).click();

    // Assess
    await expect.poll(() => received.length, patience).toBe(1);
    expect(received[0].path).toBe('/runs');
    expect(received[0].headers['svc-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    const deliveries = page.getByRole('region', { name: 'Recent deliveries' });
    await expect
      .poll(
        async () => {
          await deliveries.getByRole('button', { name: 'Refresh' }).click();
          return deliveries.locator('tbody tr').first().innerText();
        },
        { timeout: 10_000 },
      )
      .toMatch(/Success\t1\t200/);
    await consoleScreenshot(page, 'notifications');

    // Act: delete
    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: 'Delete' }).click();

    // Assess
    await expect.poll(() => page.getByText('No notifications yet.').count(), patience).toBe(1);
    expect(
      (await tenant.call('GET', `/api/workspaces/${tenant.workspaceId}/notifications`)).body.data,
    ).toEqual([]);
  });
});
