/** The form page's access step in headless Chromium: password and e-mail forms, admitted and refused. */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { screenshot, submitted, useBrowser } from '../support/browser';
import { formOf, loggedRun, workflowOf } from '../support/forms';
import { threeBlockGraph, useLocalService } from '../support/service';

const service = useLocalService();
const browser = useBrowser();
const siteUrl = () => service.get().url.replace('localhost', '127.0.0.1');

async function accessForm(settings: Record<string, unknown>) {
  const tenant = await service.get().newTenant('browser-access');
  const form = await formOf(tenant, await workflowOf(tenant, threeBlockGraph()), {
    thankYouMessage: 'Received.',
    ...settings,
  });
  const page = await browser.page();
  await page.goto(`${siteUrl()}/form/${form.identifier}`);
  return { tenant, page, form };
}

async function fillAndSubmit(page: Page): Promise<void> {
  await page.getByLabel('Name').fill('Ada');
  await page.getByRole('button', { name: 'Submit' }).click();
}

describe('form page access', () => {
  it('asks for the password first, then sends it with the fields', async () => {
    // Prepare
    const { tenant, page } = await accessForm({ authType: 'password', password: 'open sesame' });
    await expect
      .poll(() => page.getByRole('heading', { level: 2 }).textContent())
      .toBe('This form is protected');
    expect(await page.getByLabel('Name').count()).toBe(0);
    await screenshot(page, 'access-password');

    // Act
    await page.getByLabel('Password').fill('open sesame');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('Name').fill('Ada');
    const executionId = await submitted(page, () => page.getByRole('button', { name: 'Submit' }).click());

    // Assess
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Received.');
    const run = await loggedRun(tenant, executionId);
    expect(run.trigger).toBe('form');
  });

  it('shows nothing of the form before the password, and says a wrong one is wrong on the password step', async () => {
    // Prepare
    const { page } = await accessForm({ authType: 'password', password: 'open sesame' });
    // The config reads that bring a password, by their answer's status.
    const configReads: number[] = [];
    page.on('response', async (response) => {
      const read = response.request();
      if (read.method() !== 'GET' || !new URL(response.url()).pathname.startsWith('/api/form/')) return;
      if ((await read.allHeaders())['x-form-password'] !== undefined) configReads.push(response.status());
    });
    await expect
      .poll(() => page.getByRole('heading', { level: 2 }).textContent())
      .toBe('This form is protected');

    // Act
    await page.getByLabel('Password').fill('guess');
    await page.getByRole('button', { name: 'Continue' }).click();

    // Assess
    const password = page.getByLabel('Password');
    await expect.poll(() => password.getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByText('That password is not correct.').isVisible()).toBe(true);
    expect(await page.locator(':focus').getAttribute('name')).toBe('password');
    expect(await page.getByLabel('Name').count()).toBe(0);
    expect(await page.getByText('A form', { exact: true }).count()).toBe(0);
    await expect.poll(() => configReads).toEqual([401]);
    await screenshot(page, 'access-wrong-password');
    await password.fill('open sesame');
    await page.getByRole('button', { name: 'Continue' }).click();
    await fillAndSubmit(page);
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Received.');
    await expect.poll(() => configReads).toEqual([401, 200]);
  });

  it('comes back to the password step, keeping the answers, when a submission is refused', async () => {
    // Prepare
    const { tenant, page, form } = await accessForm({ authType: 'password', password: 'open sesame' });
    await page.getByLabel('Password').fill('open sesame');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('Name').fill('Ada');
    await tenant.call('PUT', `/api/forms/${form.id}`, { password: 'changed meanwhile' });

    // Act
    await page.getByRole('button', { name: 'Submit' }).click();

    // Assess
    const password = page.getByLabel('Password');
    await expect.poll(() => password.getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByText('That password is not correct.').isVisible()).toBe(true);
    await password.fill('changed meanwhile');
    await page.getByRole('button', { name: 'Continue' }).click();
    expect(await page.getByLabel('Name').inputValue()).toBe('Ada');
    await page.getByRole('button', { name: 'Submit' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Received.');
  });

  it('does not go on without a password', async () => {
    // Prepare
    const { page } = await accessForm({ authType: 'password', password: 'open sesame' });

    // Act
    await page.getByRole('button', { name: 'Continue' }).click();

    // Assess
    expect(await page.getByText('Enter the password.').isVisible()).toBe(true);
    expect(await page.getByLabel('Name').count()).toBe(0);
  });

  it('admits a listed address', async () => {
    // Prepare
    const { tenant, page } = await accessForm({ authType: 'email', allowedEmails: ['ada@example.com'] });

    // Act
    await page.getByLabel('E-mail address').fill('Ada@Example.com');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('Name').fill('Ada');
    const executionId = await submitted(page, () => page.getByRole('button', { name: 'Submit' }).click());

    // Assess
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Received.');
    expect((await loggedRun(tenant, executionId)).trigger).toBe('form');
  });

  it('admits any address of a listed @domain', async () => {
    // Prepare
    const { page } = await accessForm({ authType: 'email', allowedEmails: ['@example.org'] });

    // Act
    await page.getByLabel('E-mail address').fill('grace@example.org');
    await page.getByRole('button', { name: 'Continue' }).click();
    await fillAndSubmit(page);

    // Assess
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Received.');
  });

  it('refuses an address the list does not admit, in plain words, at the e-mail step', async () => {
    // Prepare
    const { page } = await accessForm({
      authType: 'email',
      allowedEmails: ['ada@example.com', '@example.org'],
    });
    await page.getByLabel('E-mail address').fill('mallory@sub.example.org');

    // Act
    await page.getByRole('button', { name: 'Continue' }).click();

    // Assess
    const email = page.getByLabel('E-mail address');
    await expect.poll(() => email.getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByText('This e-mail address may not use this form.').isVisible()).toBe(true);
    expect(await page.getByLabel('Name').count()).toBe(0);
    expect(await page.getByRole('status').count()).toBe(0);
    await screenshot(page, 'access-email-refused');
  });

  it('asks for an address that looks like one before going on', async () => {
    // Prepare
    const { page } = await accessForm({ authType: 'email', allowedEmails: ['@example.org'] });

    // Act
    await page.getByLabel('E-mail address').fill('not an address');
    await page.getByRole('button', { name: 'Continue' }).click();

    // Assess
    expect(await page.getByText('Enter an e-mail address like name@example.com.').isVisible()).toBe(true);
    expect(await page.getByLabel('Name').count()).toBe(0);
  });
});
