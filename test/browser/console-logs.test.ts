/** The console's workflows, logs and run pages in headless Chromium, against the local service. */
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
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
import { type Tenant, threeBlockGraph, useLocalService } from '../support/service';

const service = useLocalService();
const browser = useBrowser();
/** Live polls twice a second here; the page's default is every 2 s. */
const pollMs = 500;
const consoleUrl = () => consoleUrlOf(service.get().url, pollMs);

let tenant: Tenant;
let helloId: string;
let ordersId: string;
let failedExecutionId: string;

beforeAll(async () => {
  tenant = await service.get().newTenant('console-logs');
  helloId = await namedWorkflow(tenant, 'Hello', threeBlockGraph());
  ordersId = await namedWorkflow(tenant, 'Orders', loopGraph(3, true));
  await ranOnce(tenant, helloId, { name: 'ada' });
  await ranOnce(tenant, helloId, { name: 'grace' });
  failedExecutionId = await ranOnce(tenant, ordersId, { text: 'two pens' });
});

const logRows = (page: Page) => page.locator('table.log-table tbody tr:not(.sentinel)');
const workflowColumn = (page: Page) =>
  page.locator('table.log-table tbody tr:not(.sentinel) td:first-child').allInnerTexts();
const logsHash = () => `#/w/${tenant.workspaceId}/logs`;

describe('console logs', () => {
  it('is a table with the headers of a run, and filters by status with the view in the address', async () => {
    // Prepare
    const page = await browser.page();
    await signedIn(page, consoleUrl(), tenant.apiKey, logsHash());
    await expect.poll(() => logRows(page).count(), patience).toBe(3);
    expect(await page.getByRole('columnheader').allInnerTexts()).toEqual([
      'Workflow',
      'Started',
      'Status',
      'Trigger',
      'Duration',
      'Cost',
    ]);
    await consoleScreenshot(page, 'logs');

    // Act
    await page.getByLabel('Status').selectOption('error');

    // Assess
    await expect.poll(() => workflowColumn(page), patience).toEqual(['Orders']);
    expect(await logRows(page).first().innerText()).toContain('Error');
    const address = page.url();
    expect(new URLSearchParams(address.split('?').pop()).get('level')).toBe('error');
    const other = await browser.page();
    await signedIn(other, consoleUrl(), tenant.apiKey, address.slice(address.indexOf('#')));
    await expect.poll(() => workflowColumn(other), patience).toEqual(['Orders']);
    expect(await other.getByLabel('Status').inputValue()).toBe('error');
  });

  it('filters by the search box, with the search in the address, and names a term it does not know', async () => {
    // Prepare
    const page = await browser.page();
    await signedIn(page, consoleUrl(), tenant.apiKey, logsHash());
    await expect.poll(() => logRows(page).count(), patience).toBe(3);

    // Act
    await page.getByLabel('Search').fill('workflow:"Hello" duration:>0');
    await page.getByLabel('Search').press('Enter');

    // Assess
    await expect.poll(() => workflowColumn(page), patience).toEqual(['Hello', 'Hello']);
    expect(new URLSearchParams(page.url().split('?').pop()).get('q')).toBe('workflow:"Hello" duration:>0');

    // Act
    await page.getByLabel('Search').fill(`level:error ${failedExecutionId}`);
    await page.getByRole('button', { name: 'Apply' }).click();

    // Assess
    await expect.poll(() => workflowColumn(page), patience).toEqual(['Orders']);
    const reopened = await browser.page();
    await signedIn(reopened, consoleUrl(), tenant.apiKey, page.url().slice(page.url().indexOf('#')));
    await expect.poll(() => workflowColumn(reopened), patience).toEqual(['Orders']);
    expect(await reopened.getByLabel('Search').inputValue()).toBe(`level:error ${failedExecutionId}`);

    // Act
    await page.getByLabel('Search').fill('colour:red');
    await page.getByLabel('Search').press('Enter');

    // Assess
    await expect
      .poll(() => page.getByRole('alert').textContent(), patience)
      .toContain('Unknown search term "colour:"');
    expect(await logRows(page).count()).toBe(0);
  });

  it('exports the rows of the current filter as CSV', async () => {
    // Prepare
    const page = await browser.page();
    await signedIn(page, consoleUrl(), tenant.apiKey, `${logsHash()}?level=error`);
    await expect.poll(() => workflowColumn(page), patience).toEqual(['Orders']);

    // Act
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);

    // Assess
    const lines = (await readFile(await download.path(), 'utf8')).trimEnd().split('\r\n');
    expect(download.suggestedFilename()).toMatch(/^logs-.*\.csv$/);
    expect(lines[0]).toBe('Workflow,Started,Status,Trigger,Duration (ms),Cost (USD),Execution ID');
    expect(lines.slice(1).map((line) => line.split(','))).toEqual([
      [
        'Orders',
        expect.any(String),
        'error',
        'api',
        expect.stringMatching(/^\d+$/),
        '0.001',
        failedExecutionId,
      ],
    ]);
  });

  it('puts a new run on top within 10 s in Live mode', async () => {
    // Prepare
    const page = await browser.page();
    await signedIn(page, consoleUrl(), tenant.apiKey, `${logsHash()}?live=1`);
    await expect.poll(() => logRows(page).count(), patience).toBeGreaterThanOrEqual(3);
    const before = await logRows(page).count();
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();

    // Act
    const executionId = await ranOnce(tenant, ordersId, { text: 'live' });

    // Assess: the run ended when its answer came; the poll allows 10 s from then
    await expect
      .poll(async () => (await logRows(page).first().getAttribute('data-execution-id')) === executionId, {
        timeout: 10_000,
        interval: 100,
      })
      .toBe(true);
    expect(await logRows(page).count()).toBe(before + 1);
    expect(await page.getByRole('button', { name: /Live/ }).getAttribute('aria-pressed')).toBe('true');
  });
});

describe('console run', () => {
  it('opens a failed run with its error on top and its failing span selected and in view', async () => {
    // Prepare
    const page = await browser.page();
    await signedIn(page, consoleUrl(), tenant.apiKey, `${logsHash()}?level=error`);

    // Act
    await page.getByRole('link', { name: 'Orders' }).first().click();

    // Assess
    const failing = page.getByRole('treeitem', { name: /^Parse/ });
    await expect.poll(() => failing.getAttribute('aria-selected'), patience).toBe('true');
    expect(await failing.isVisible()).toBe(true);
    expect(
      await failing.evaluate((element) => {
        const box = element.getBoundingClientRect();
        const tree = element.closest('[role="tree"]')?.getBoundingClientRect();
        return tree !== undefined && box.top >= tree.top && box.bottom <= tree.bottom;
      }),
    ).toBe(true);
    expect(await page.getByRole('alert').first().textContent()).toContain('Unexpected token in the order');
    expect(await page.getByRole('complementary', { name: 'Span Parse' }).innerText()).toContain(
      'Unexpected token in the order',
    );
    expect(await page.getByRole('treeitem').count()).toBe(1 + 1 + 1 + 3 * 2 + 1);
    expect(await page.locator('[data-block="parse"]').innerText()).toContain('✓ ran');
    await consoleScreenshot(page, 'run');

    // Act: the keyboard moves the selection up the tree
    await failing.focus();
    await page.keyboard.press('ArrowUp');

    // Assess
    await expect.poll(() => failing.getAttribute('aria-selected'), patience).toBe('false');
    expect(await page.locator('[role="treeitem"][aria-selected="true"]').getAttribute('aria-label')).toMatch(
      /^Step/,
    );
  });
});

describe('console long trace', () => {
  it('draws only the rows in view of a long trace, with the failing span after the loop selected in view', async () => {
    // Prepare: 3 + 2 × 300 + 1 rows, the failing one last
    const longId = await namedWorkflow(tenant, 'Long orders', loopGraph(300, true));
    const executionId = await ranOnce(tenant, longId, { text: 'many' });
    const page = await browser.page();

    // Act
    await signedIn(page, consoleUrl(), tenant.apiKey, `#/w/${tenant.workspaceId}/runs/log_${executionId}`);

    // Assess
    const tree = page.getByRole('tree', { name: 'Trace' });
    await expect.poll(() => tree.getAttribute('data-rows'), patience).toBe(String(3 + 2 * 300 + 1));
    const failing = page.getByRole('treeitem', { name: /^Parse/ });
    await expect.poll(() => failing.getAttribute('aria-selected'), patience).toBe('true');
    expect(await failing.getAttribute('aria-posinset')).toBe('3');
    expect(await failing.getAttribute('aria-level')).toBe('2');
    const drawn = await page.getByRole('treeitem').count();
    expect(drawn).toBeLessThan(100);
    expect(await page.getByRole('treeitem', { name: /^Start/ }).count()).toBe(0);

    // Act: Home goes to the first row, drawing the top of the tree
    await failing.focus();
    await page.keyboard.press('Home');

    // Assess
    await expect
      .poll(() => page.evaluate<string | null>("document.activeElement?.getAttribute('aria-label') ?? null"))
      .toMatch(/^Workflow execution/);
    expect(await page.getByRole('treeitem', { name: /^Start/ }).count()).toBe(1);
    expect(await page.getByRole('treeitem', { name: /^Parse/ }).count()).toBe(0);
  });
});

describe('console workflows', () => {
  it('lists the workflows with their last run, and runs one from a form made from its start block', async () => {
    // Prepare
    const page = await browser.page();
    await signedIn(page, consoleUrl(), tenant.apiKey, `#/w/${tenant.workspaceId}/workflows`);
    const orders = page.getByRole('row', { name: /^Orders / });
    await expect.poll(() => orders.innerText(), patience).toMatch(/Deployed.*Error.*\t\d+\t100 %/s);

    // Act
    await page.getByRole('link', { name: 'Hello' }).click();
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByLabel(/^name/).fill('linus');
    await consoleScreenshot(page, 'workflow');
    await page.getByRole('button', { name: 'Run', exact: true }).last().click();

    // Assess
    await expect
      .poll(() => page.locator('.run-answer').innerText(), patience)
      .toContain('"shouted": "LINUS"');
    expect(await page.locator('[data-block="shout"]').innerText()).toContain('Shout');
    const logged = await tenant.call(
      'GET',
      `/api/v1/logs?workspaceId=${tenant.workspaceId}&workflowIds=${helloId}&triggers=manual`,
    );
    expect(logged.body.data).toHaveLength(1);
  });
});
