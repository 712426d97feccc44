/** The forms' management routes as a workspace member meets them: create, read, change, delete, rules, isolation. */
import { describe, expect, it } from 'vitest';
import { DynamoFormStore } from '../../../adapters/dynamodb/form-store';
import { everyFieldGraph, formOf, uniqueIdentifier, workflowOf } from '../../support/forms';
import { request, type Tenant, useLocalService } from '../../support/service';

const service = useLocalService();

async function readMember(owner: Tenant): Promise<Tenant> {
  const member = await service.get().newTenant('reader');
  await service.get().admin('POST', `/api/v1/admin/workspaces/${owner.workspaceId}/members`, {
    userId: member.userId,
    permissions: 'read',
  });
  return member;
}

describe('form management', () => {
  it('creates a form, answers its page url, and deploys a workflow that was not deployed', async () => {
    // Prepare
    const tenant = await service.get().newTenant('forms');
    const workflowId = await workflowOf(tenant, everyFieldGraph(), false);
    const identifier = uniqueIdentifier('contact');

    // Act
    const created = await tenant.call('POST', '/api/forms', {
      workflowId,
      identifier,
      title: 'Contact us',
      description: 'We answer within a day',
      fields: { name: { label: 'Your name', description: 'As on your passport' } },
      authType: 'public',
      thankYouMessage: 'Thanks!',
    });
    const status = await tenant.call('GET', `/api/workflows/${workflowId}/status`);

    // Assess
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({
      id: expect.stringMatching(/^form_/),
      workflowId,
      workspaceId: tenant.workspaceId,
      identifier,
      url: `${service.get().url}/form/${identifier}`,
      title: 'Contact us',
      description: 'We answer within a day',
      fields: { name: { label: 'Your name', description: 'As on your passport' } },
      authType: 'public',
      hasPassword: false,
      thankYouMessage: 'Thanks!',
      createdBy: tenant.userId,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(status.body.isDeployed).toBe(true);
  });

  it('stores a password only as an scrypt hash and never answers it', async () => {
    const tenant = await service.get().newTenant('forms');
    const workflowId = await workflowOf(tenant, everyFieldGraph());

    const form = await formOf(tenant, workflowId, { authType: 'password', password: 'open sesame 42' });
    const read = await tenant.call('GET', `/api/forms/${form.id}`);
    const stored = await DynamoFormStore.fromEnv().getForm(form.id);

    expect(read.body.data).toMatchObject({ authType: 'password', hasPassword: true });
    expect(JSON.stringify([form, read.body])).not.toMatch(/open sesame|scrypt/);
    expect(stored?.passwordHash).toMatch(/^scrypt\$16384\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(stored?.passwordHash).not.toContain('open sesame');
  });

  it('refuses an identifier that is not lowercase URL-safe or longer than 100 characters, naming identifier', async () => {
    const tenant = await service.get().newTenant('forms');
    const workflowId = await workflowOf(tenant, everyFieldGraph());
    const base = { workflowId, title: 'T', authType: 'public' };

    const answers = await Promise.all(
      ['Contact', 'con tact', 'con.tact', '-contact', 'contact-', 'a'.repeat(101), ''].map((identifier) =>
        tenant.call('POST', '/api/forms', { ...base, identifier }),
      ),
    );
    const longest = await tenant.call('POST', '/api/forms', {
      ...base,
      identifier: `${'a'.repeat(90)}${Date.now()}`.slice(0, 100),
    });

    for (const answer of answers) {
      expect(answer.status).toBe(400);
      expect(answer.body.code).toBe('VALIDATION_ERROR');
      expect(answer.body.details[0].path).toBe('identifier');
    }
    expect(longest.status).toBe(201);
  });

  it('refuses an identifier another form has with 409 naming it', async () => {
    const tenant = await service.get().newTenant('forms');
    const other = await service.get().newTenant('forms-other');
    const form = await formOf(tenant, await workflowOf(tenant, everyFieldGraph()));

    const again = await other.call('POST', '/api/forms', {
      workflowId: await workflowOf(other, everyFieldGraph()),
      identifier: form.identifier,
      title: 'Mine',
      authType: 'public',
    });

    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'CONFLICT', details: [{ path: 'identifier' }] });
    expect(again.body.error).toContain(form.identifier);
  });

  it('refuses access settings that do not fit the mode, naming the member', async () => {
    const tenant = await service.get().newTenant('forms');
    const workflowId = await workflowOf(tenant, everyFieldGraph());
    const base = { workflowId, title: 'T' };
    const cases: [Record<string, unknown>, string][] = [
      [{ authType: 'password' }, 'password'],
      [{ authType: 'password', password: '' }, 'password'],
      [{ authType: 'email' }, 'allowedEmails'],
      [{ authType: 'email', allowedEmails: [] }, 'allowedEmails'],
      [{ authType: 'email', allowedEmails: ['ada@example.com', 'not an address'] }, 'allowedEmails.1'],
      [{ authType: 'email', allowedEmails: ['@'] }, 'allowedEmails.0'],
      [{ authType: 'public', password: 'x' }, 'password'],
      [{ authType: 'public', allowedEmails: ['a@x.com'] }, 'allowedEmails'],
      [{ authType: 'sso' }, 'authType'],
      [{ authType: 'public', fields: { nope: { label: 'Nope' } } }, 'fields.nope'],
      [{ authType: 'public', title: '' }, 'title'],
    ];

    for (const [settings, path] of cases) {
      const answer = await tenant.call('POST', '/api/forms', {
        ...base,
        identifier: uniqueIdentifier('bad'),
        ...settings,
      });
      expect(answer.status, JSON.stringify(settings)).toBe(400);
      expect(answer.body.code).toBe('VALIDATION_ERROR');
      expect(answer.body.details.map((detail: { path: string }) => detail.path)).toContain(path);
    }
  });

  it('lists the forms of a workspace oldest first, and reads one by id', async () => {
    const tenant = await service.get().newTenant('forms');
    const workflowId = await workflowOf(tenant, everyFieldGraph());
    const first = await formOf(tenant, workflowId);
    const second = await formOf(tenant, workflowId, {
      authType: 'email',
      allowedEmails: ['Ada@Example.com', '@example.org'],
    });

    const listed = await tenant.call('GET', `/api/forms?workspaceId=${tenant.workspaceId}`);
    const read = await tenant.call('GET', `/api/forms/${second.id}`);

    expect(listed.status).toBe(200);
    expect(listed.body.data.map((form: { id: string }) => form.id)).toEqual([first.id, second.id]);
    expect(read.body.data).toMatchObject({
      id: second.id,
      allowedEmails: ['ada@example.com', '@example.org'],
    });
  });

  it('changes a form: a new identifier moves the page, the old one is free and answers 404', async () => {
    const tenant = await service.get().newTenant('forms');
    const workflowId = await workflowOf(tenant, everyFieldGraph());
    const form = await formOf(tenant, workflowId, { thankYouMessage: 'Thanks' });
    const identifier = uniqueIdentifier('moved');

    const changed = await tenant.call('PUT', `/api/forms/${form.id}`, {
      identifier,
      title: 'Renamed',
      authType: 'password',
      password: 'hunter22',
      thankYouMessage: null,
    });
    const oldPage = await request(service.get().url, 'GET', `/api/form/${form.identifier}`);
    const newPage = await request(service.get().url, 'GET', `/api/form/${identifier}`, {
      headers: { 'x-form-password': 'hunter22' },
    });
    const byId = await tenant.call('GET', `/api/forms/${form.id}`);
    const reuse = await formOf(tenant, workflowId, { identifier: form.identifier });

    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ id: form.id, identifier, title: 'Renamed', hasPassword: true });
    expect(changed.body.data.thankYouMessage).toBeUndefined();
    expect(oldPage.status).toBe(404);
    expect(newPage.body.data).toMatchObject({ identifier, title: 'Renamed', authType: 'password' });
    expect(byId.body.data.identifier).toBe(identifier);
    expect(reuse.identifier).toBe(form.identifier);
  });

  it('keeps the stored password when a change does not give a new one, and drops it when the mode changes', async () => {
    const tenant = await service.get().newTenant('forms');
    const form = await formOf(tenant, await workflowOf(tenant, everyFieldGraph()), {
      authType: 'password',
      password: 'hunter22',
    });

    const retitled = await tenant.call('PUT', `/api/forms/${form.id}`, { title: 'New title' });
    const submitted = await request(service.get().url, 'POST', `/api/form/${form.identifier}`, {
      body: { formData: { name: 'Ada' }, password: 'hunter22' },
    });
    const opened = await tenant.call('PUT', `/api/forms/${form.id}`, { authType: 'public' });
    const stored = await DynamoFormStore.fromEnv().getForm(form.id);

    expect(retitled.body.data.hasPassword).toBe(true);
    expect(submitted.status).toBe(200);
    expect(opened.body.data.hasPassword).toBe(false);
    expect(stored?.passwordHash).toBeUndefined();
  });

  it('refuses a change to an identifier another form has, and leaves both as they were', async () => {
    const tenant = await service.get().newTenant('forms');
    const workflowId = await workflowOf(tenant, everyFieldGraph());
    const first = await formOf(tenant, workflowId);
    const second = await formOf(tenant, workflowId);

    const answer = await tenant.call('PUT', `/api/forms/${second.id}`, { identifier: first.identifier });
    const firstPage = await request(service.get().url, 'GET', `/api/form/${first.identifier}`);
    const secondRead = await tenant.call('GET', `/api/forms/${second.id}`);

    expect(answer.status).toBe(409);
    expect(firstPage.status).toBe(200);
    expect(secondRead.body.data.identifier).toBe(second.identifier);
  });

  it('deletes a form: its page and config are gone and its identifier is free', async () => {
    const tenant = await service.get().newTenant('forms');
    const workflowId = await workflowOf(tenant, everyFieldGraph());
    const form = await formOf(tenant, workflowId);

    const deleted = await tenant.call('DELETE', `/api/forms/${form.id}`);
    const again = await tenant.call('DELETE', `/api/forms/${form.id}`);
    const config = await request(service.get().url, 'GET', `/api/form/${form.identifier}`);
    const reuse = await formOf(tenant, workflowId, { identifier: form.identifier });

    expect(deleted.body).toEqual({ data: { id: form.id, deleted: true } });
    expect(again.status).toBe(404);
    expect(config.status).toBe(404);
    expect(reuse.identifier).toBe(form.identifier);
  });

  it("removes a workflow's forms with it, so their identifiers are free", async () => {
    const tenant = await service.get().newTenant('forms');
    const workflowId = await workflowOf(tenant, everyFieldGraph());
    const form = await formOf(tenant, workflowId);

    await tenant.call('DELETE', `/api/workflows/${workflowId}`);
    const config = await request(service.get().url, 'GET', `/api/form/${form.identifier}`);
    const read = await tenant.call('GET', `/api/forms/${form.id}`);
    const reuse = await formOf(tenant, await workflowOf(tenant, everyFieldGraph()), {
      identifier: form.identifier,
    });

    expect(config.status).toBe(404);
    expect(read.status).toBe(404);
    expect(reuse.identifier).toBe(form.identifier);
  });

  it("answers 404 for another tenant's form and workspace, and lets a reader read but not change", async () => {
    const owner = await service.get().newTenant('forms');
    const stranger = await service.get().newTenant('stranger');
    const workflowId = await workflowOf(owner, everyFieldGraph());
    const form = await formOf(owner, workflowId);
    const reader = await readMember(owner);

    const answers = {
      get: await stranger.call('GET', `/api/forms/${form.id}`),
      put: await stranger.call('PUT', `/api/forms/${form.id}`, { title: 'Mine' }),
      delete: await stranger.call('DELETE', `/api/forms/${form.id}`),
      list: await stranger.call('GET', `/api/forms?workspaceId=${owner.workspaceId}`),
      create: await stranger.call('POST', '/api/forms', {
        workflowId,
        identifier: uniqueIdentifier('steal'),
        title: 'T',
        authType: 'public',
      }),
    };
    const readerGet = await reader.call('GET', `/api/forms/${form.id}`);
    const readerPut = await reader.call('PUT', `/api/forms/${form.id}`, { title: 'Mine' });
    const after = await owner.call('GET', `/api/forms/${form.id}`);

    for (const answer of Object.values(answers)) expect(answer.status).toBe(404);
    expect(readerGet.status).toBe(200);
    expect(readerPut.status).toBe(403);
    expect(after.body.data.title).toBe('A form');
  });

  it('lists the form routes in the OpenAPI document', async () => {
    const answer = await request(service.get().url, 'GET', '/api/openapi.json');

    expect(Object.keys(answer.body.paths)).toEqual(
      expect.arrayContaining(['/api/forms', '/api/forms/{formId}', '/api/form/{identifier}']),
    );
    expect(answer.body.paths['/api/form/{identifier}'].post.operationId).toBe('submitForm');
  });
});
