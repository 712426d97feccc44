/** The demo data of `npm start` comes with a working form, also in data dirs seeded before forms existed. */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureDemoData } from '../../../local/seed';
import { request, useLocalService } from '../../support/service';

const service = useLocalService();

describe('demo form', () => {
  it('seeds the contact form: its page config names its fields and a submission is accepted', async () => {
    // Prepare
    const { url, adminKey, dataDir } = service.get().service;

    // Act
    const demo = await ensureDemoData(dataDir, url, adminKey);
    const config = await request(url, 'GET', '/api/form/contact');
    const page = await fetch(`${url}/form/contact`);
    const submitted = await request(url, 'POST', '/api/form/contact', {
      body: { formData: { email: 'ada@example.com', message: 'Hello from the demo' } },
    });

    // Assess
    expect(demo.formUrl).toBe(`${url}/form/contact`);
    expect(config.body.data).toMatchObject({
      title: 'Contact us',
      authType: 'public',
      fields: [
        { name: 'email', type: 'string', label: 'Your e-mail', required: true },
        { name: 'message', type: 'string', label: 'Message', required: true },
      ],
    });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(submitted.status).toBe(200);
  });

  it('adds the form to demo data seeded before forms, once', async () => {
    const { url, adminKey, dataDir } = service.get().service;
    const file = join(dataDir, 'demo.json');
    const seeded = JSON.parse(await readFile(file, 'utf8'));
    await service.get().as(seeded.apiKey)(
      'DELETE',
      `/api/forms/${await formIdOf(seeded.apiKey, seeded.workspaceId)}`,
    );
    const { formUrl: _formUrl, ...beforeForms } = seeded;
    await writeFile(file, JSON.stringify(beforeForms));

    const demo = await ensureDemoData(dataDir, url, adminKey);
    const again = await ensureDemoData(dataDir, url, adminKey);
    const config = await request(url, 'GET', '/api/form/contact');

    expect(demo.formUrl).toBe(`${url}/form/contact`);
    expect(again).toEqual(demo);
    expect(config.status).toBe(200);
    expect(JSON.parse(await readFile(file, 'utf8')).formUrl).toBe(demo.formUrl);
  });
});

async function formIdOf(apiKey: string, workspaceId: string): Promise<string> {
  const listed = await service.get().as(apiKey)('GET', `/api/forms?workspaceId=${workspaceId}`);
  return listed.body.data[0].id;
}
