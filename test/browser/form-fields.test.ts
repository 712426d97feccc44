/** The form page in headless Chromium: each field type filled and sent, the checks before sending, and the pages with nothing to fill. */
import { describe, expect, it } from 'vitest';
import { screenshot, submitted, useBrowser } from '../support/browser';
import { everyFieldGraph, everyFieldOutput, formOf, loggedRun, workflowOf } from '../support/forms';
import { threeBlockGraph, useLocalService } from '../support/service';

const service = useLocalService();
const browser = useBrowser();
// The server listens on 127.0.0.1; the browser is sent there, not to whatever `localhost` resolves to first.
const siteUrl = () => service.get().url.replace('localhost', '127.0.0.1');

/** Counts the page's submissions, to show a check stopped one before it was sent. */
function countSubmissions(page: import('playwright-core').Page): () => number {
  let count = 0;
  page.on('request', (request) => {
    if (request.method() === 'POST' && request.url().includes('/api/form/')) count += 1;
  });
  return () => count;
}

describe('form page fields', () => {
  it('sends text, number, toggle, JSON object, JSON list and a file, then shows the thank-you message', async () => {
    // Prepare
    const tenant = await service.get().newTenant('browser-fields');
    const form = await formOf(tenant, await workflowOf(tenant, everyFieldGraph()), {
      title: 'Sign up',
      description: 'It takes a minute.',
      thankYouMessage: 'Welcome aboard!',
      fields: { age: { label: 'Your age' } },
    });
    const page = await browser.page();
    await page.goto(`${siteUrl()}/form/${form.identifier}`);

    // Act
    await page.getByLabel('Name').fill('Ada');
    await page.getByLabel('Your age').fill('36');
    await page.getByRole('switch', { name: 'Subscribe' }).uncheck();
    await page.getByLabel('Profile').fill('{"city": "London"}');
    await page.getByLabel('Tags').fill('["math", "engines"]');
    await page.getByLabel('Attachments').setInputFiles({
      name: 'notes.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('Analytical engine notes'),
    });
    await screenshot(page, 'fields-filled');
    const executionId = await submitted(page, () => page.getByRole('button', { name: 'Submit' }).click());

    // Assess
    const thanks = page.getByRole('status');
    await expect.poll(() => thanks.textContent()).toBe('Welcome aboard!');
    expect(await page.title()).toBe('Sign up');
    expect(await page.locator(':focus').textContent()).toBe('Welcome aboard!');
    await screenshot(page, 'fields-thank-you');
    const run = await loggedRun(tenant, executionId);
    expect(run.trigger).toBe('form');
    expect(run.finalOutput).toEqual(everyFieldOutput);
  });

  it('fills in defaults and shows descriptions and the required mark', async () => {
    // Prepare
    const tenant = await service.get().newTenant('browser-defaults');
    const form = await formOf(tenant, await workflowOf(tenant, everyFieldGraph()));
    const page = await browser.page();

    // Act
    await page.goto(`${siteUrl()}/form/${form.identifier}`);

    // Assess
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('A form');
    expect(await page.getByRole('switch', { name: 'Subscribe' }).isChecked()).toBe(true);
    expect(await page.getByLabel('Name').getAttribute('aria-required')).toBe('true');
    expect(await page.locator('label', { hasText: 'Name' }).textContent()).toBe('Name (required)');
    expect(await page.getByText('Who you are').isVisible()).toBe(true);
  });

  it('flags a missing required field and bad JSON next to the fields, without sending anything', async () => {
    // Prepare
    const tenant = await service.get().newTenant('browser-checks');
    const form = await formOf(tenant, await workflowOf(tenant, everyFieldGraph()));
    const page = await browser.page();
    const submissions = countSubmissions(page);
    await page.goto(`${siteUrl()}/form/${form.identifier}`);

    // Act
    await page.getByLabel('Profile').fill('{"city": London}');
    await page.getByLabel('Tags').fill('{"not": "a list"}');
    await page.getByRole('button', { name: 'Submit' }).click();

    // Assess
    const name = page.getByLabel('Name');
    await expect.poll(() => name.getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByText('Name is required.').isVisible()).toBe(true);
    expect(await page.getByText(/This is not valid JSON/).isVisible()).toBe(true);
    expect(
      await page.getByText('Enter a JSON list in square brackets, like ["red", "green"].').isVisible(),
    ).toBe(true);
    expect(await page.getByRole('alert').textContent()).toBe(
      'Some answers need a change: see the notes below.',
    );
    expect(await page.locator(':focus').getAttribute('name')).toBe('name');
    expect(await page.getByLabel('Profile').getAttribute('aria-describedby')).toMatch(/-error/);
    expect(submissions()).toBe(0);
    await screenshot(page, 'fields-errors');
  });

  it('shows the server’s refusal of a field next to that field', async () => {
    // Prepare: a page loaded while the form had a field the workflow has since dropped
    const tenant = await service.get().newTenant('browser-server-errors');
    const workflowId = await workflowOf(tenant, everyFieldGraph());
    const form = await formOf(tenant, workflowId);
    const page = await browser.page();
    await page.goto(`${siteUrl()}/form/${form.identifier}`);
    await page.getByLabel('Name').fill('Ada');
    await page.getByLabel('Age').fill('3');
    await tenant.call('PUT', `/api/workflows/${workflowId}`, {
      state: threeBlockGraph({ inputFormat: [{ name: 'name', type: 'string', required: true }] }),
    });
    await tenant.call('POST', `/api/workflows/${workflowId}/deploy`);

    // Act
    await page.getByRole('button', { name: 'Submit' }).click();

    // Assess
    await expect.poll(() => page.getByLabel('Age').getAttribute('aria-invalid')).toBe('true');
    const ageError = page.locator('.field', { has: page.getByLabel('Age') }).locator('.field-error');
    expect(await ageError.textContent()).toBe('This form no longer has this field. Reload the page.');
    expect(await page.getByLabel('Name').getAttribute('aria-invalid')).toBeNull();
  });

  it('says "No input fields configured" for a workflow without inputs, and offers nothing to submit', async () => {
    // Prepare
    const tenant = await service.get().newTenant('browser-no-fields');
    const form = await formOf(tenant, await workflowOf(tenant, threeBlockGraph({ inputFormat: [] })));
    const page = await browser.page();

    // Act
    await page.goto(`${siteUrl()}/form/${form.identifier}`);

    // Assess
    await expect.poll(() => page.getByRole('status').textContent()).toBe('No input fields configured');
    expect(await page.getByRole('button').count()).toBe(0);
  });

  it('says the form is not found for an unknown identifier and for one that is not a form address', async () => {
    // Prepare
    const page = await browser.page();

    for (const identifier of ['no-such-form', 'Not_An_Identifier']) {
      // Act
      const answer = await page.goto(`${siteUrl()}/form/${identifier}`);

      // Assess
      expect(answer?.status()).toBe(200);
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Form not found');
      expect(await page.title()).toBe('Form not found');
    }
    await screenshot(page, 'not-found');
  });

  it('can be filled and sent with the keyboard alone', async () => {
    // Prepare
    const tenant = await service.get().newTenant('browser-keyboard');
    const workflowId = await workflowOf(
      tenant,
      threeBlockGraph({
        inputFormat: [
          { name: 'name', type: 'string', required: true },
          { name: 'subscribe', type: 'boolean', default: true },
        ],
        code: 'return { name: <start.name>, subscribe: <start.subscribe> };',
        data: '<shout.result>',
      }),
    );
    const form = await formOf(tenant, workflowId, { thankYouMessage: 'Got it.' });
    const page = await browser.page();
    await page.goto(`${siteUrl()}/form/${form.identifier}`);
    await page.getByLabel('Name').waitFor();

    // Act
    await page.keyboard.press('Tab');
    await page.keyboard.type('Grace');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Space');
    await page.keyboard.press('Tab');
    const executionId = await submitted(page, () => page.keyboard.press('Enter'));

    // Assess
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Got it.');
    const run = await loggedRun(tenant, executionId);
    expect(run.finalOutput).toEqual({ name: 'Grace', subscribe: false });
  });
});
