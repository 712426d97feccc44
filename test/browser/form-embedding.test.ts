/** The form page inside another site's iframe, and on a phone-sized screen. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot, submitted, useBrowser } from '../support/browser';
import { everyFieldGraph, formOf, loggedRun, workflowOf } from '../support/forms';
import { useLocalService } from '../support/service';

const service = useLocalService();
const browser = useBrowser();
const siteUrl = () => service.get().url.replace('localhost', '127.0.0.1');

/** Another origin (another port) whose page frames the form given in `?src=`. */
let hostSite: Server;
let hostUrl: string;
beforeAll(async () => {
  hostSite = createServer((request, response) => {
    const src = new URL(request.url ?? '/', 'http://host').searchParams.get('src') ?? '';
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(
      `<!doctype html><title>Our site</title><h1>Feedback</h1>` +
        `<iframe src="${encodeURI(src)}" title="Feedback form" style="width:100%;height:900px;border:0"></iframe>`,
    );
  });
  await new Promise<void>((done) => hostSite.listen(0, '127.0.0.1', done));
  hostUrl = `http://127.0.0.1:${(hostSite.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((done) => hostSite.close(() => done())));

describe('form page embedding', () => {
  it('works inside an iframe on another origin', async () => {
    // Prepare
    const tenant = await service.get().newTenant('browser-iframe');
    const form = await formOf(tenant, await workflowOf(tenant, everyFieldGraph()), {
      thankYouMessage: 'Thanks!',
    });
    const page = await browser.page();
    await page.goto(`${hostUrl}/?src=${encodeURIComponent(`${siteUrl()}/form/${form.identifier}`)}`);
    const frame = page.frameLocator('iframe[title="Feedback form"]');

    // Act
    await frame.getByLabel('Name').fill('Ada');
    const executionId = await submitted(page, () => frame.getByRole('button', { name: 'Submit' }).click());

    // Assess
    await expect.poll(() => frame.getByRole('status').textContent()).toBe('Thanks!');
    expect(new URL(page.url()).origin).not.toBe(new URL(siteUrl()).origin);
    expect((await loggedRun(tenant, executionId)).finalOutput.name).toBe('Ada');
    await screenshot(page, 'embedded');
  });

  it('fits a phone screen without sideways scrolling, and can be sent from it', async () => {
    // Prepare
    const tenant = await service.get().newTenant('browser-phone');
    const form = await formOf(tenant, await workflowOf(tenant, everyFieldGraph()), {
      title: 'A rather long title that has to wrap on a small screen',
      description: 'https://example.com/a-very-long-address-without-any-spaces-in-it-at-all-that-must-wrap',
    });
    const page = await browser.page({
      viewport: { width: 375, height: 667 },
      isMobile: true,
      hasTouch: true,
    });
    await page.goto(`${siteUrl()}/form/${form.identifier}`);
    await page.getByLabel('Name').waitFor();

    // Act
    // A string, evaluated in the page: the tests are type checked without the DOM's types.
    const widths: { page: number; widest: number } = await page.evaluate(`({
      page: document.documentElement.scrollWidth,
      widest: Math.max(...Array.from(document.querySelectorAll('main *'), (element) => element.getBoundingClientRect().right)),
    })`);
    await screenshot(page, 'phone');
    await page.getByLabel('Name').fill('Ada');
    await page.getByLabel('Tags').fill('["a"]');
    const executionId = await submitted(page, () => page.getByRole('button', { name: 'Submit' }).tap());

    // Assess
    expect(widths.page).toBeLessThanOrEqual(375);
    expect(widths.widest).toBeLessThanOrEqual(375);
    expect((await loggedRun(tenant, executionId)).finalOutput.tags).toEqual(['a']);
  });
});
