/** The public side of forms as a visitor meets it: the page config, and submissions in each access mode with every error of the contract. */
import { describe, expect, it } from 'vitest';
import {
  everyFieldGraph,
  everyFieldOutput,
  formOf,
  loggedRun,
  submit,
  workflowOf,
} from '../../support/forms';
import { request, threeBlockGraph, useLocalService } from '../../support/service';

const service = useLocalService();
const url = () => service.get().url;

describe('form page config', () => {
  it('gives the fields of the deployed Start block with their types, labels, descriptions, required flags and defaults', async () => {
    // Prepare
    const tenant = await service.get().newTenant('config');
    const form = await formOf(tenant, await workflowOf(tenant, everyFieldGraph()), {
      title: 'Sign up',
      description: 'Two minutes',
      fields: { age: { label: 'Your age', description: 'In years' } },
    });

    // Act
    const answer = await request(url(), 'GET', `/api/form/${form.identifier}`);

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.body).toEqual({
      data: {
        identifier: form.identifier,
        title: 'Sign up',
        description: 'Two minutes',
        authType: 'public',
        thankYouMessage: 'Thank you! Your submission has been received.',
        fields: [
          { name: 'name', type: 'string', label: 'Name', description: 'Who you are', required: true },
          { name: 'age', type: 'number', label: 'Your age', description: 'In years', required: false },
          { name: 'subscribe', type: 'boolean', label: 'Subscribe', required: false, default: true },
          { name: 'profile', type: 'object', label: 'Profile', required: false },
          { name: 'tags', type: 'array', label: 'Tags', required: false },
          { name: 'attachments', type: 'files', label: 'Attachments', required: false },
        ],
      },
    });
  });

  it('answers a password or e-mail form asked without credentials with 401 and its authType alone', async () => {
    const tenant = await service.get().newTenant('config');
    const workflowId = await workflowOf(tenant, everyFieldGraph());
    const locked = await formOf(tenant, workflowId, { authType: 'password', password: 'sekret-pass' });
    const listed = await formOf(tenant, workflowId, {
      authType: 'email',
      allowedEmails: ['boss@corp.example'],
    });

    const answers = await Promise.all(
      [locked, listed].map((form) => request(url(), 'GET', `/api/form/${form.identifier}`)),
    );

    expect(answers.map((answer) => answer.status)).toEqual([401, 401]);
    expect(answers.map((answer) => answer.body)).toEqual([{ authType: 'password' }, { authType: 'email' }]);
  });

  it('answers 404 NOT_FOUND for an unknown identifier, one that cannot exist, and a form whose workflow is undeployed', async () => {
    const tenant = await service.get().newTenant('config');
    const workflowId = await workflowOf(tenant, everyFieldGraph());
    const form = await formOf(tenant, workflowId);
    await tenant.call('POST', `/api/workflows/${workflowId}/undeploy`);

    const answers = await Promise.all(
      ['no-such-form', 'NOT%20AN%20ID', form.identifier].map((identifier) =>
        request(url(), 'GET', `/api/form/${identifier}`),
      ),
    );
    const submitted = await submit(url(), form.identifier, { formData: { name: 'Ada' } });

    for (const answer of [...answers, submitted]) {
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual({ error: 'Form not found', code: 'NOT_FOUND' });
    }
  });
});

describe('form submission', () => {
  it('starts the workflow with the typed values and answers its executionId; the run is logged with trigger form', async () => {
    // Prepare
    const tenant = await service.get().newTenant('submit');
    const form = await formOf(tenant, await workflowOf(tenant, everyFieldGraph()));

    // Act
    const answer = await submit(url(), form.identifier, {
      formData: {
        name: 'Ada',
        age: '36',
        subscribe: false,
        profile: { city: 'London' },
        tags: '["math", "engines"]',
        attachments: [
          { name: 'notes.txt', type: 'text/plain', base64: Buffer.from('hello').toString('base64') },
        ],
      },
    });
    const entry = await loggedRun(tenant, answer.body.data.executionId);

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ success: true, data: { executionId: expect.any(String) } });
    expect(entry).toMatchObject({ trigger: 'form', level: 'info', workflowId: form.workflowId });
    expect(entry.finalOutput).toEqual(everyFieldOutput);
  });

  it('applies a field default the visitor left out', async () => {
    const tenant = await service.get().newTenant('submit');
    const form = await formOf(tenant, await workflowOf(tenant, everyFieldGraph()));

    const answer = await submit(url(), form.identifier, { formData: { name: 'Ada' } });
    const entry = await loggedRun(tenant, answer.body.data.executionId);

    expect(entry.finalOutput).toMatchObject({ name: 'Ada', subscribe: true, files: [] });
  });

  it('refuses a missing required field or a wrong type with 400 VALIDATION_ERROR naming the field', async () => {
    const tenant = await service.get().newTenant('submit');
    const form = await formOf(tenant, await workflowOf(tenant, everyFieldGraph()));
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{}, 'formData.name', /"name" is required/],
      [{ name: '' }, 'formData.name', /"name" is required/],
      [{ name: 'Ada', age: 'old' }, 'formData.age', /"age" must be a number/],
      [{ name: 'Ada', subscribe: 'maybe' }, 'formData.subscribe', /"subscribe" must be a boolean/],
      [{ name: 'Ada', profile: '[1]' }, 'formData.profile', /"profile" must be an object/],
      [{ name: 'Ada', tags: '{' }, 'formData.tags', /"tags" must be an array/],
      [{ name: 'Ada', nickname: 'Countess' }, 'formData.nickname', /no field "nickname"/],
    ];

    for (const [formData, path, message] of cases) {
      const answer = await submit(url(), form.identifier, { formData });
      expect(answer.status, JSON.stringify(formData)).toBe(400);
      expect(answer.body.code).toBe('VALIDATION_ERROR');
      expect(answer.body.error).toMatch(message);
      expect(answer.body.details.map((detail: { path: string }) => detail.path)).toContain(path);
    }
  });

  it('refuses a body without formData, or not JSON, naming what is wrong', async () => {
    const tenant = await service.get().newTenant('submit');
    const form = await formOf(tenant, await workflowOf(tenant, everyFieldGraph()));

    const missing = await submit(url(), form.identifier, { name: 'Ada' });
    const notObject = await submit(url(), form.identifier, { formData: 'Ada' });
    const broken = await request(url(), 'POST', `/api/form/${form.identifier}`, { rawBody: '{"formData": ' });

    expect(missing.status).toBe(400);
    expect(missing.body.details.map((detail: { path: string }) => detail.path)).toContain('formData');
    expect(notObject.status).toBe(400);
    expect(notObject.body.details[0].path).toBe('formData');
    expect(broken.status).toBe(400);
    expect(broken.body.code).toBe('INVALID_JSON');
  });

  it("answers 400 'No input fields configured' for a workflow whose Start block has no fields", async () => {
    const tenant = await service.get().newTenant('submit');
    const form = await formOf(
      tenant,
      await workflowOf(tenant, threeBlockGraph({ inputFormat: [], code: 'return 1;' })),
    );

    const config = await request(url(), 'GET', `/api/form/${form.identifier}`);
    const answer = await submit(url(), form.identifier, { formData: {} });

    expect(config.body.data.fields).toEqual([]);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 'VALIDATION_ERROR', error: 'No input fields configured' });
  });

  it('answers 404 NOT_FOUND for an unknown identifier', async () => {
    const answer = await submit(url(), 'no-such-form-anywhere', { formData: { name: 'Ada' } });

    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ error: 'Form not found', code: 'NOT_FOUND' });
  });
});

describe('form access modes', () => {
  it('password: a missing or wrong password is 401 INVALID_PASSWORD and starts nothing; the right one runs', async () => {
    const tenant = await service.get().newTenant('password');
    const form = await formOf(tenant, await workflowOf(tenant, everyFieldGraph()), {
      authType: 'password',
      password: 'correct horse',
    });

    const missing = await submit(url(), form.identifier, { formData: { name: 'Ada' } });
    const wrong = await submit(url(), form.identifier, {
      formData: { name: 'Ada' },
      password: 'Correct horse',
    });
    const right = await submit(url(), form.identifier, {
      formData: { name: 'Ada' },
      password: 'correct horse',
    });
    await loggedRun(tenant, right.body.data.executionId);
    const logs = await tenant.call('GET', `/api/v1/logs?workspaceId=${tenant.workspaceId}`);

    expect(missing.status).toBe(401);
    expect(missing.body.code).toBe('INVALID_PASSWORD');
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ error: 'The password is not correct', code: 'INVALID_PASSWORD' });
    expect(right.status).toBe(200);
    expect(logs.body.data).toHaveLength(1);
  });

  it('password: a wrong password is refused before the fields are checked', async () => {
    const tenant = await service.get().newTenant('password');
    const form = await formOf(tenant, await workflowOf(tenant, everyFieldGraph()), {
      authType: 'password',
      password: 'correct horse',
    });

    const answer = await submit(url(), form.identifier, { formData: {}, password: 'guess' });

    expect(answer.status).toBe(401);
  });

  it('email: admits exact addresses and @domain entries without regard to case; refuses others with 403 EMAIL_NOT_ALLOWED', async () => {
    const tenant = await service.get().newTenant('email');
    const form = await formOf(tenant, await workflowOf(tenant, everyFieldGraph()), {
      authType: 'email',
      allowedEmails: ['ada@lovelace.example', '@babbage.example'],
    });
    const send = (email?: string) =>
      submit(url(), form.identifier, {
        formData: { name: 'Ada' },
        ...(email === undefined ? {} : { email }),
      });

    const admitted = await Promise.all(
      ['ada@lovelace.example', 'ADA@Lovelace.Example', 'charles@babbage.example'].map(send),
    );
    const refused = await Promise.all(
      [
        undefined,
        '',
        'eve@lovelace.example',
        'eve@sub.babbage.example',
        'eve@evilbabbage.example',
        'babbage.example',
        'ada@lovelace.example.evil',
      ].map(send),
    );

    for (const answer of admitted) expect(answer.status).toBe(200);
    for (const answer of refused) {
      expect(answer.status).toBe(403);
      expect(answer.body.code).toBe('EMAIL_NOT_ALLOWED');
    }
  });

  it('public: anyone with the link submits; password and email members are ignored', async () => {
    const tenant = await service.get().newTenant('public');
    const form = await formOf(tenant, await workflowOf(tenant, everyFieldGraph()));

    const answer = await submit(url(), form.identifier, {
      formData: { name: 'Ada' },
      password: 'x',
      email: 'x@y.z',
    });

    expect(answer.status).toBe(200);
  });
});
