import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  checkFormAccess,
  createForm,
  findPublicForm,
  formRunInput,
  publicFormConfig,
  updateForm,
} from '../../../core/forms/service';
import type { FormRecord } from '../../../core/forms/types';
import { principal } from '../webhooks/fakes';
import { formFixture } from './fakes';

const BASE = 'https://forms.example.com';
const writer = principal('usr_writer');
const reader = principal('usr_reader');
const settings = { identifier: 'contact', title: 'Contact', authType: 'public' as const };

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(new Date('2030-03-04T05:06:07.000Z'));
});

afterEach(() => {
  vi.useRealTimers();
});

describe('createForm', () => {
  it('deploys a workflow that is not deployed, once', async () => {
    // Prepare
    const { deps, workflows } = formFixture();

    // Act
    const form = await createForm(deps, writer, { ...settings, workflowId: 'wf_draft' }, BASE);

    // Assess
    expect(form.url).toBe('https://forms.example.com/form/contact');
    expect(workflows.workflows.get('wf_draft')).toMatchObject({ isDeployed: true, deployedVersion: 1 });
    expect(workflows.deployments.has('wf_draft#1')).toBe(true);
  });

  it('refuses a reader with 403 and stores nothing', async () => {
    const { deps, forms } = formFixture();

    await expect(createForm(deps, reader, { ...settings, workflowId: 'wf_1' }, BASE)).rejects.toMatchObject({
      statusCode: 403,
    });
    expect(forms.byIdentifier.size).toBe(0);
  });

  it('takes over the identifier of a form whose workflow was deleted', async () => {
    const { deps, forms, workflows } = formFixture();
    await createForm(deps, writer, { ...settings, workflowId: 'wf_1' }, BASE);
    workflows.workflows.delete('wf_1');

    const form = await createForm(deps, writer, { ...settings, workflowId: 'wf_draft' }, BASE);

    expect(forms.byIdentifier.get('contact')?.id).toBe(form.id);
  });

  it('keeps an identifier whose form still has its workflow: 409', async () => {
    const { deps } = formFixture();
    await createForm(deps, writer, { ...settings, workflowId: 'wf_1' }, BASE);

    await expect(
      createForm(deps, writer, { ...settings, workflowId: 'wf_draft' }, BASE),
    ).rejects.toMatchObject({
      statusCode: 409,
    });
  });
});

describe('updateForm', () => {
  it('needs a password to switch to password access, and keeps the stored one afterwards', async () => {
    const { deps, forms } = formFixture();
    const form = await createForm(deps, writer, { ...settings, workflowId: 'wf_1' }, BASE);

    await expect(updateForm(deps, writer, form.id, { authType: 'password' }, BASE)).rejects.toMatchObject({
      statusCode: 400,
      details: [{ path: 'password' }],
    });
    await updateForm(deps, writer, form.id, { authType: 'password', password: 'pw' }, BASE);
    const hash = forms.byIdentifier.get('contact')?.passwordHash;
    vi.setSystemTime(new Date('2030-03-04T05:07:00.000Z'));
    const retitled = await updateForm(deps, writer, form.id, { title: 'New' }, BASE);

    expect(hash).toMatch(/^scrypt\$/);
    expect(retitled.hasPassword).toBe(true);
    expect(forms.byIdentifier.get('contact')?.passwordHash).toBe(hash);
  });
});

describe('checkFormAccess', () => {
  const form = (overrides: Partial<FormRecord>): FormRecord => ({
    id: 'form_1',
    workflowId: 'wf_1',
    workspaceId: 'ws_1',
    identifier: 'contact',
    title: 'Contact',
    authType: 'public',
    createdBy: 'usr_writer',
    createdAt: '',
    updatedAt: '',
    ...overrides,
  });

  it('acts as the creator of a public form', async () => {
    const { deps } = formFixture();

    const acting = await checkFormAccess(deps, form({}), {});

    expect(acting).toMatchObject({ user: { id: 'usr_writer' }, apiKeyId: 'form:form_1' });
  });

  it('refuses a form whose creator is gone with 404', async () => {
    const { deps, people } = formFixture();
    people.users.delete('usr_writer');

    await expect(checkFormAccess(deps, form({}), {})).rejects.toMatchObject({ statusCode: 404 });
  });

  it('refuses an email form without an address with 403 EMAIL_NOT_ALLOWED', async () => {
    const { deps } = formFixture();

    await expect(
      checkFormAccess(deps, form({ authType: 'email', allowedEmails: ['@x.com'] }), {}),
    ).rejects.toMatchObject({ statusCode: 403, code: 'EMAIL_NOT_ALLOWED' });
  });

  it('refuses a password form whose stored hash is missing, whatever is given', async () => {
    const { deps } = formFixture();

    await expect(
      checkFormAccess(deps, form({ authType: 'password' }), { password: 'x' }),
    ).rejects.toMatchObject({
      statusCode: 401,
      code: 'INVALID_PASSWORD',
    });
  });
});

describe('the public side', () => {
  it('takes an undeployed workflow off the page: config and input are 404', async () => {
    const { deps, workflows } = formFixture();
    await createForm(deps, writer, { ...settings, workflowId: 'wf_1' }, BASE);
    const form = await findPublicForm(deps, 'contact');
    const workflow = workflows.workflows.get('wf_1');
    if (workflow) workflow.isDeployed = false;

    await expect(publicFormConfig(deps, form)).rejects.toMatchObject({
      statusCode: 404,
      message: 'Form not found',
    });
    await expect(formRunInput(deps, form, { name: 'Ada' })).rejects.toMatchObject({ statusCode: 404 });
  });

  it("refuses any input to a form without fields with 'No input fields configured'", async () => {
    const { deps } = formFixture();
    await createForm(deps, writer, { ...settings, workflowId: 'wf_empty' }, BASE);
    const form = await findPublicForm(deps, 'contact');

    await expect(formRunInput(deps, form, {})).rejects.toMatchObject({
      statusCode: 400,
      message: 'No input fields configured',
    });
  });

  it('passes the values of known fields through unchanged, for prepareRun to check', async () => {
    const { deps } = formFixture();
    await createForm(deps, writer, { ...settings, workflowId: 'wf_1' }, BASE);
    const form = await findPublicForm(deps, 'contact');

    expect(await formRunInput(deps, form, { name: 42 })).toEqual({ name: 42 });
  });
});
