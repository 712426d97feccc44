/**
 * The screenshots of docs/console.md: a local service in a temp data dir with a few workflows and
 * runs, each console page opened in headless Chromium and saved to docs/images/console/. Sends
 * nothing beyond loopback (the notification shown is never tested).
 *
 *   npx tsx scripts/console-screenshots.ts
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { fromProjectRoot } from '../lib/project';
import { startLocalService } from '../local/service';
import { launchChromium } from '../test/support/browser';
import { consoleUrlOf, loopGraph, namedWorkflow, ranOnce, signedIn } from '../test/support/console';
import { unreachableRateLimitsJson } from '../support/limits';
import { makeClient, threeBlockGraph } from '../test/support/service';

const imageDir = fromProjectRoot('docs/images/console');

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.RATE_LIMITS_JSON = unreachableRateLimitsJson;
const dataDir = await mkdtemp(join(tmpdir(), 'console-screenshots-'));
const service = await startLocalService({ dataDir, port: 0, adminKey: 'screenshots-admin-key' });
const browser = await launchChromium();
try {
  const tenant = await makeClient(service).newTenant('screenshots');
  const hello = await namedWorkflow(tenant, 'Greeter', threeBlockGraph());
  const orders = await namedWorkflow(tenant, 'Import orders', loopGraph(6, true));
  await namedWorkflow(tenant, 'Nightly totals', loopGraph(3, false));
  for (const name of ['ada', 'grace', 'linus', 'margaret']) await ranOnce(tenant, hello, { name });
  const failed = await ranOnce(tenant, orders, { text: 'two pens, one lamp' });
  await ranOnce(tenant, orders, { text: 'a chair' });
  await tenant.call('POST', `/api/workspaces/${tenant.workspaceId}/notifications`, {
    channel: 'webhook',
    allWorkflows: true,
    levelFilter: ['error'],
    webhook: { url: 'https://hooks.example.com/runs', secret: 'whsec_example-secret' },
  });
  await tenant.call('POST', `/api/workspaces/${tenant.workspaceId}/notifications`, {
    channel: 'email',
    allWorkflows: true,
    email: { recipients: ['oncall@example.com'] },
    alert: { rule: 'consecutive_failures', threshold: 3 },
  });
  await tenant.call('PUT', `/api/workspaces/${tenant.workspaceId}/environment/SLACK_TOKEN`, {
    value: 'xoxb-example',
  });
  await tenant.call('POST', '/api/forms', {
    workflowId: hello,
    identifier: 'greeter',
    title: 'Say hello',
    authType: 'public',
  });

  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  const url = consoleUrlOf(service.url);
  const ws = `#/w/${tenant.workspaceId}`;
  await mkdir(imageDir, { recursive: true });
  const shoot = (name: string) => page.screenshot({ path: join(imageDir, `${name}.png`), fullPage: true });
  const settle = (target: Page) => target.waitForLoadState('networkidle');

  await page.goto(url);
  await page.getByLabel('API key').waitFor();
  await shoot('sign-in');
  await signedIn(page, url, tenant.apiKey, `${ws}/workflows`);
  await page.getByRole('row', { name: /^Greeter .*Success/ }).waitFor();
  await settle(page);
  await shoot('workflows');
  await page.goto(`${url}${ws}/workflows/${hello}`);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.getByLabel(/^name/).fill('Ada');
  await page.getByRole('button', { name: 'Run', exact: true }).last().click();
  await page.locator('.run-answer').waitFor();
  await shoot('workflow');
  await page.goto(`${url}${ws}/logs`);
  await page.locator('table.log-table tbody tr[data-execution-id]').first().waitFor();
  await settle(page);
  await shoot('logs');
  await page.goto(`${url}${ws}/runs/log_${failed}`);
  await page.getByRole('treeitem', { name: /^Parse/ }).waitFor();
  await settle(page);
  await shoot('run');
  await page.goto(`${url}${ws}/dashboard`);
  await page.locator('.chart canvas').first().waitFor();
  await settle(page);
  await shoot('dashboard');
  await page.goto(`${url}${ws}/notifications`);
  await page.getByRole('button', { name: 'New notification' }).click();
  await settle(page);
  await shoot('notifications');
  await page.goto(`${url}${ws}/settings`);
  await page.getByLabel('Name of the new key').fill('CI deploys');
  await page.getByRole('button', { name: 'Create API key' }).click();
  await page.getByLabel('New API key').waitFor();
  await settle(page);
  await shoot('settings');
  console.log(`Screenshots written to ${imageDir}`);
} finally {
  await browser.close();
  await service.stop();
  await rm(dataDir, { recursive: true, force: true });
}
