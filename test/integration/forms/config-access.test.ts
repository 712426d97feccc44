/** A password or e-mail form's page config: nothing of the form before access is proven through x-form-password / x-form-email. */
import { describe, expect, it } from 'vitest';
import { everyFieldGraph, formOf, submit, workflowOf } from '../../support/forms';
import { requestFrom } from '../../support/from-address';
import { request, useLocalService } from '../../support/service';

const service = useLocalService();
const url = () => service.get().url;

const configOf = (identifier: string, headers: Record<string, string> = {}) =>
  request(url(), 'GET', `/api/form/${identifier}`, { headers });

async function protectedForm(settings: Record<string, unknown>) {
  const tenant = await service.get().newTenant('config-access');
  return formOf(tenant, await workflowOf(tenant, everyFieldGraph()), {
    title: 'Staff survey',
    thankYouMessage: 'Noted.',
    ...settings,
  });
}

describe('password form config', () => {
  it('gives the config to the right password, percent-encoded as UTF-8', async () => {
    // Prepare
    const form = await protectedForm({ authType: 'password', password: 'pässwörd 日本 50%' });

    // Act
    const answer = await configOf(form.identifier, {
      'x-form-password': encodeURIComponent('pässwörd 日本 50%'),
    });

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({
      title: 'Staff survey',
      authType: 'password',
      thankYouMessage: 'Noted.',
    });
    expect(answer.body.data.fields.map((field: { name: string }) => field.name)).toContain('name');
    expect(JSON.stringify(answer.body)).not.toMatch(/pässwörd|scrypt|passwordHash/);
  });

  it('answers a wrong password 401 INVALID_PASSWORD with nothing of the form', async () => {
    // Prepare
    const form = await protectedForm({ authType: 'password', password: 'open sesame' });

    // Act
    const answer = await configOf(form.identifier, { 'x-form-password': 'guess' });

    // Assess
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ error: 'The password is not correct', code: 'INVALID_PASSWORD' });
  });

  it('does not count a read without a password as a failed authentication', async () => {
    // Prepare
    const form = await protectedForm({ authType: 'password', password: 'open sesame' });

    // Act: past the failed-authentication burst of one address (20)
    const answers = [];
    for (let index = 0; index < 25; index += 1)
      answers.push(await requestFrom('127.0.4.1', url(), 'GET', `/api/form/${form.identifier}`));

    // Assess
    expect(new Set(answers.map((answer) => answer.status))).toEqual(new Set([401]));
    expect(answers.at(-1)?.body).toEqual({ authType: 'password' });
  });
});

describe('e-mail form config', () => {
  it('gives the config to a listed address and refuses another with 403 EMAIL_NOT_ALLOWED', async () => {
    // Prepare
    const form = await protectedForm({ authType: 'email', allowedEmails: ['ada@example.com'] });

    // Act
    const listed = await configOf(form.identifier, { 'x-form-email': 'Ada@Example.com' });
    const other = await configOf(form.identifier, { 'x-form-email': 'mallory@example.com' });

    // Assess
    expect(listed.status).toBe(200);
    expect(listed.body.data.title).toBe('Staff survey');
    expect(other.status).toBe(403);
    expect(other.body).toEqual({
      error: 'This e-mail address may not submit this form',
      code: 'EMAIL_NOT_ALLOWED',
    });
  });

  it('trims the address before the list is checked, in a submission and in a config read', async () => {
    // Prepare
    const form = await protectedForm({ authType: 'email', allowedEmails: ['@example.org'] });

    // Act
    const submitted = await submit(url(), form.identifier, {
      formData: { name: 'Grace' },
      email: ' \tgrace@example.org\n',
    });
    const config = await configOf(form.identifier, {
      'x-form-email': encodeURIComponent(' grace@example.org\n'),
    });

    // Assess
    expect(submitted.status).toBe(200);
    expect(config.status).toBe(200);
  });
});
