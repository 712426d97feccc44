/** The console's sign-in, sign-out and settings in headless Chromium, against the local service. */
import { describe, expect, it } from 'vitest';
import { useBrowser } from '../support/browser';
import { consoleScreenshot, consoleUrlOf, namedWorkflow, signedIn, patience } from '../support/console';
import { request, threeBlockGraph, useLocalService } from '../support/service';

const service = useLocalService();
const browser = useBrowser();
const consoleUrl = () => consoleUrlOf(service.get().url);

describe('console sign-in', () => {
  it('signs in with an API key kept in sessionStorage only, and forgets it on sign-out', async () => {
    // Prepare
    const tenant = await service.get().newTenant('console-sign-in');
    await namedWorkflow(tenant, 'Greeter', threeBlockGraph());
    const page = await browser.page();
    await page.goto(consoleUrl());
    await consoleScreenshot(page, 'sign-in');

    // Act
    await page.getByLabel('API key').fill(tenant.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();

    // Assess
    await expect.poll(() => page.getByRole('link', { name: 'Greeter' }).count(), patience).toBe(1);
    expect(page.url()).not.toContain(tenant.apiKey);
    expect(JSON.stringify(await page.context().cookies())).not.toContain(tenant.apiKey);
    expect(await page.evaluate<string>('JSON.stringify(sessionStorage)')).toContain(tenant.apiKey);
    expect(await page.evaluate<string>('JSON.stringify(localStorage)')).not.toContain(tenant.apiKey);
    await consoleScreenshot(page, 'workflows');

    // Act
    await page.getByRole('button', { name: 'Sign out' }).click();

    // Assess
    await page.getByLabel('API key').waitFor();
    expect(await page.evaluate<string>('JSON.stringify(sessionStorage)')).not.toContain(tenant.apiKey);
    await page.reload();
    await page.getByLabel('API key').waitFor();
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(0);
  });

  it("shows the service's own error for a wrong key, and keeps nothing", async () => {
    // Prepare
    const page = await browser.page();
    await page.goto(consoleUrl());
    const refused = await request(service.get().url, 'GET', '/api/workspaces', {
      headers: { 'x-api-key': 'svc_not-a-key-of-anyone' },
    });

    // Act
    await page.getByLabel('API key').fill('svc_not-a-key-of-anyone');
    await page.getByRole('button', { name: 'Sign in' }).click();

    // Assess
    await expect.poll(() => page.getByRole('alert').textContent(), patience).toContain(refused.body.error);
    expect(refused.status).toBe(401);
    expect(await page.getByLabel('API key').isVisible()).toBe(true);
    expect(await page.evaluate<number>('sessionStorage.length')).toBe(0);
    await consoleScreenshot(page, 'sign-in-wrong-key');
  });
});

describe('console settings', () => {
  it('creates an API key shown once with a copy button, which works until it is revoked', async () => {
    // Prepare
    const tenant = await service.get().newTenant('console-keys');
    const page = await browser.page();
    await page
      .context()
      .grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(consoleUrl()).origin });
    await signedIn(page, consoleUrl(), tenant.apiKey, `#/w/${tenant.workspaceId}/settings`);

    // Act: create
    await page.getByLabel('Name of the new key').fill('CI deploys');
    await page.getByRole('button', { name: 'Create API key' }).click();
    const shown = page.getByLabel('New API key');
    await shown.waitFor();
    const newKey = await shown.inputValue();
    await page.getByRole('button', { name: 'Copy' }).click();

    // Assess: the key works, was copied, and is listed by its prefix only
    expect((await service.get().as(newKey)('GET', '/api/workspaces')).status).toBe(200);
    await expect.poll(() => page.evaluate<string>('navigator.clipboard.readText()'), patience).toBe(newKey);
    await page.getByRole('button', { name: 'Copied ✓' }).waitFor();
    await consoleScreenshot(page, 'settings-new-key');
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByLabel('New API key').count()).toBe(0);
    expect(await page.content()).not.toContain(newKey);
    expect(await page.getByRole('row', { name: /CI deploys/ }).count()).toBe(1);

    // Act: revoke
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Revoke CI deploys' }).click();

    // Assess
    await expect.poll(() => page.getByRole('row', { name: /CI deploys/ }).count(), patience).toBe(0);
    expect((await service.get().as(newKey)('GET', '/api/workspaces')).status).toBe(401);
    expect((await tenant.call('GET', '/api/workspaces')).status).toBe(200);
  });

  it('sets an environment variable by name without showing values, and shows usage, limits and forms', async () => {
    // Prepare
    const tenant = await service.get().newTenant('console-settings');
    const workflowId = await namedWorkflow(tenant, 'Contact', threeBlockGraph());
    const form = await tenant.call('POST', '/api/forms', {
      workflowId,
      identifier: `contact-${Date.now()}`,
      title: 'Contact us',
      authType: 'public',
    });
    expect(form.status).toBe(201);
    const page = await browser.page();
    await signedIn(page, consoleUrl(), tenant.apiKey, `#/w/${tenant.workspaceId}/settings`);

    // Act
    await page.getByLabel('Variable name').fill('SLACK_TOKEN');
    await page.getByLabel('Value').fill('xoxb-very-secret');
    await page.getByRole('button', { name: 'Set value' }).click();

    // Assess
    await expect.poll(() => page.getByRole('row', { name: /SLACK_TOKEN/ }).count(), patience).toBe(1);
    expect(await page.content()).not.toContain('xoxb-very-secret');
    const stored = await tenant.call('GET', `/api/workspaces/${tenant.workspaceId}/environment`);
    expect(stored.body.data.map((variable: { name: string }) => variable.name)).toEqual(['SLACK_TOKEN']);
    const usage = await tenant.call('GET', '/api/users/me/usage-limits');
    const usageFacts = page.getByRole('region', { name: 'Usage and limits' });
    await expect.poll(() => usageFacts.innerText(), patience).toContain(`Plan\n${usage.body.usage.plan}`);
    expect(await usageFacts.innerText()).toContain(`$0 of $${usage.body.usage.limit.toFixed(2)}`);
    expect(await usageFacts.innerText()).toMatch(/Sync runs\n\d+ of \d+ a minute left/);
    // The service writes the form's link from the host the page was asked by.
    const formUrl = `${new URL(consoleUrl()).origin}/form/${form.body.data.identifier}`;
    expect(await page.getByRole('link', { name: formUrl }).getAttribute('href')).toBe(formUrl);
    await consoleScreenshot(page, 'settings');
  });
});
