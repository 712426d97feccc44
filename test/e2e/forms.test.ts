/**
 * Forms through the compiled server: the management route, the public config, the page the server
 * builds at start with its script, a submission whose run is logged with trigger form, and refusals.
 */
import { describe, expect, it } from 'vitest';
import { deployedWorkflow, request, type Tenant } from '../../support/api-client';
import { until } from '../support/wait';
import { useE2eService } from './service';

const service = useE2eService();
let counter = 0;
const uniqueIdentifier = (name: string) => `${name}-${Date.now().toString(36)}-${++counter}`;

async function aForm(tenant: Tenant, settings: Record<string, unknown> = {}) {
  const workflowId = await deployedWorkflow(tenant);
  const created = await tenant.call('POST', '/api/forms', {
    workflowId,
    identifier: uniqueIdentifier('feedback'),
    title: 'Tell us',
    authType: 'public',
    fields: { name: { label: 'Your name' } },
    thankYouMessage: 'Thanks!',
    ...settings,
  });
  if (created.status !== 201) throw new Error(`No form: ${JSON.stringify(created.body)}`);
  return created;
}

describe('forms', () => {
  it('creates a form whose public config lists the Start fields with their labels', async () => {
    // Prepare
    const tenant = await service.newTenant('form');

    // Act
    const created = await aForm(tenant);
    const identifier = created.body.data.identifier;
    const config = await request(service.url, 'GET', `/api/form/${identifier}`);
    const listed = await tenant.call('GET', `/api/forms?workspaceId=${tenant.workspaceId}`);

    // Assess
    expect(created.body.data).toMatchObject({
      id: expect.stringMatching(/^form_/),
      identifier,
      url: expect.stringMatching(new RegExp(`^http://.+/form/${identifier}$`)),
    });
    expect(config.status).toBe(200);
    expect(config.body.data).toMatchObject({
      identifier,
      title: 'Tell us',
      authType: 'public',
      thankYouMessage: 'Thanks!',
      fields: [expect.objectContaining({ name: 'name', type: 'string', label: 'Your name', required: true })],
    });
    expect(listed.body.data.map((form: { id: string }) => form.id)).toEqual([created.body.data.id]);
  });

  it('serves the page as HTML that any site may frame, and the script it loads', async () => {
    // Prepare
    const tenant = await service.newTenant('form-page');
    const identifier = (await aForm(tenant)).body.data.identifier;

    // Act
    const page = await fetch(`${service.url}/form/${identifier}`);
    const html = await page.text();
    const scriptPath = /<script[^>]*src="([^"]+)"/.exec(html)?.[1];
    const script = await fetch(new URL(scriptPath ?? 'missing.js', `${service.url}/form/${identifier}`));
    await script.arrayBuffer();

    // Assess
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain('frame-ancestors *');
    expect(page.headers.get('x-frame-options')).toBeNull();
    expect(html).toContain('<html');
    expect(scriptPath).toEqual(expect.any(String));
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
  });

  it('submits: the workflow runs and is logged with trigger form', async () => {
    // Prepare
    const tenant = await service.newTenant('form-submit');
    const identifier = (await aForm(tenant)).body.data.identifier;

    // Act
    const submitted = await request(service.url, 'POST', `/api/form/${identifier}`, {
      body: { formData: { name: 'Ada' } },
    });
    const logged = await until(async () => {
      const page = await tenant.call(
        'GET',
        `/api/v1/logs?workspaceId=${tenant.workspaceId}&executionId=${submitted.body.data.executionId}&includeFinalOutput=true`,
      );
      return page.body.data[0];
    });

    // Assess
    expect(submitted.status).toBe(200);
    expect(submitted.body).toEqual({ success: true, data: { executionId: expect.any(String) } });
    expect(logged).toMatchObject({ trigger: 'form', level: 'info', finalOutput: { shouted: 'ADA' } });
  });

  it('refuses a missing required field with 400 naming it, and an unknown identifier with 404', async () => {
    // Prepare
    const tenant = await service.newTenant('form-refused');
    const identifier = (await aForm(tenant)).body.data.identifier;

    // Act
    const missing = await request(service.url, 'POST', `/api/form/${identifier}`, { body: { formData: {} } });
    const unknown = await request(service.url, 'POST', '/api/form/no-such-form-anywhere', {
      body: { formData: { name: 'Ada' } },
    });
    const unknownPage = await fetch(`${service.url}/api/form/no-such-form-anywhere`);

    // Assess
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('VALIDATION_ERROR');
    expect(missing.body.details[0].path).toBe('formData.name');
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('NOT_FOUND');
    expect(unknownPage.status).toBe(404);
  });

  it('refuses a wrong password with 401 INVALID_PASSWORD and admits the right one', async () => {
    // Prepare
    const tenant = await service.newTenant('form-password');
    const identifier = (await aForm(tenant, { authType: 'password', password: 'otters-rule' })).body.data
      .identifier;

    // Act
    const wrong = await request(service.url, 'POST', `/api/form/${identifier}`, {
      body: { formData: { name: 'Ada' }, password: 'beavers' },
    });
    const right = await request(service.url, 'POST', `/api/form/${identifier}`, {
      body: { formData: { name: 'Ada' }, password: 'otters-rule' },
    });

    // Assess
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe('INVALID_PASSWORD');
    expect(right.status).toBe(200);
    expect(right.body.success).toBe(true);
  });
});
