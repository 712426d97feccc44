/**
 * Headless Chromium for the form page tests: the system's Chromium (Debian's `chromium`, or
 * `CHROMIUM_PATH`) driven by playwright-core, which downloads no browser of its own. Screenshots go
 * to `test-results/browser/`, kept by CI as artifacts.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type Browser, type BrowserContextOptions, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';

export const screenshotDir = join('test-results', 'browser');

/** Without the background-networking flags Chromium keeps calling Google's hosts, which a closed CI network refuses. */
const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/** The system's Chromium, headless, as the browser tests and the console bench drive it. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: chromiumArgs,
  });
}

export function useBrowser(): { page(options?: BrowserContextOptions): Promise<Page> } {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
    await mkdir(screenshotDir, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
  });
  return {
    /** A page of its own context (cookies, storage, viewport), closed with the browser. */
    async page(options = {}) {
      if (!browser) throw new Error('The browser has not started');
      const context = await browser.newContext({ viewport: { width: 1024, height: 800 }, ...options });
      const page = await context.newPage();
      page.setDefaultTimeout(10_000);
      return page;
    },
  };
}

export function screenshot(page: Page, name: string): Promise<Buffer> {
  return page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage: true });
}

/** Runs `act` (a click, a key) and answers the execution id of the submission it sent. */
export async function submitted(page: Page, act: () => Promise<unknown>): Promise<string> {
  const answer = page.waitForResponse(
    (response) =>
      response.request().method() === 'POST' && new URL(response.url()).pathname.startsWith('/api/form/'),
  );
  await act();
  const body = await (await answer).json();
  if (!body?.data?.executionId) throw new Error(`The submission was refused: ${JSON.stringify(body)}`);
  return body.data.executionId;
}
