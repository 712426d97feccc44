/** The console's dashboard in headless Chromium: the counts of the runs made, from the metrics route. */
import { describe, expect, it } from 'vitest';
import { useBrowser } from '../support/browser';
import {
  consoleScreenshot,
  consoleUrlOf,
  loopGraph,
  namedWorkflow,
  ranOnce,
  signedIn,
  patience,
} from '../support/console';
import { threeBlockGraph, useLocalService } from '../support/service';

const service = useLocalService();
const browser = useBrowser();

describe('console dashboard', () => {
  it('counts the runs and errors made, charts them, and names the workflow that fails most', async () => {
    // Prepare: 3 runs that succeed and 2 that fail
    const tenant = await service.get().newTenant('console-dashboard');
    const hello = await namedWorkflow(tenant, 'Hello', threeBlockGraph());
    const orders = await namedWorkflow(tenant, 'Orders', loopGraph(2, true));
    for (const name of ['ada', 'grace', 'linus']) await ranOnce(tenant, hello, { name });
    for (const text of ['one', 'two']) await ranOnce(tenant, orders, { text });
    const page = await browser.page({ viewport: { width: 1280, height: 900 } });

    // Act
    await signedIn(
      page,
      consoleUrlOf(service.get().url),
      tenant.apiKey,
      `#/w/${tenant.workspaceId}/dashboard`,
    );

    // Assess
    await expect.poll(() => page.locator('[data-total="runs"]').textContent(), patience).toBe('5');
    expect(await page.locator('[data-total="errors"]').textContent()).toBe('2');
    expect(await page.locator('.chart canvas').count()).toBe(2);
    const failing = page.getByRole('row', { name: /Orders/ });
    expect((await failing.innerText()).split('\t')).toEqual(['Orders', '2', '2', '100 %']);
    await consoleScreenshot(page, 'dashboard');

    // Act: the last 30 days, by day
    await page.getByRole('button', { name: 'Last 30 days' }).click();

    // Assess
    await expect
      .poll(() => page.getByRole('button', { name: 'Last 30 days' }).getAttribute('aria-pressed'))
      .toBe('true');
    await expect.poll(() => page.getByText('Runs and errors per day').count(), patience).toBe(1);
    expect(await page.locator('[data-total="runs"]').textContent()).toBe('5');
    expect(await page.locator('[data-total="errors"]').textContent()).toBe('2');
  });
});
