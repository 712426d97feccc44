/**
 * Files through the compiled server: an upload URL, the bytes PUT to it, a run whose file block
 * reads the upload (a PDF, through the document parser the handlers load on demand) and answers
 * a presigned URL that downloads the same bytes; files sent inline; refusals.
 */
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { deployedWorkflow, fileReadGraph as readGraph } from '../../support/api-client';
import { useE2eService } from './service';

const service = useE2eService();

async function pdfWith(line: string): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  pdf.addPage().drawText(line, { x: 50, y: 700, font, size: 14 });
  return pdf.save();
}

describe('files', () => {
  it('uploads to a presigned URL, reads the PDF in a file block and answers a URL that downloads it', async () => {
    // Prepare
    const tenant = await service.newTenant('files');
    const id = await deployedWorkflow(tenant, readGraph());
    const bytes = await pdfWith('Quarterly otter census');

    // Act
    const upload = await tenant.call('POST', '/api/files/upload-url', {
      workspaceId: tenant.workspaceId,
      name: 'census.pdf',
      type: 'application/pdf',
      size: bytes.length,
    });
    const put = await fetch(upload.body.data.uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': 'application/pdf' },
      body: bytes,
    });
    const run = await tenant.call('POST', `/api/workflows/${id}/execute`, {
      docs: { name: 'census.pdf', url: upload.body.data.file.url, type: 'application/pdf' },
    });
    const [file] = run.body.output.files;
    const download = await fetch(file.url);

    // Assess
    expect(upload.status).toBe(200);
    expect(upload.body.data).toMatchObject({
      uploadUrl: expect.stringMatching(/^http/),
      file: { name: 'census.pdf', type: 'application/pdf', size: bytes.length },
    });
    expect(put.status).toBe(200);
    expect(run.status).toBe(200);
    expect(run.body.output.text).toContain('Quarterly otter census');
    expect(file).toMatchObject({ name: 'census.pdf', type: 'application/pdf', size: bytes.length });
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
  });

  it('reads a CSV sent inline as base64', async () => {
    // Prepare
    const tenant = await service.newTenant('files-inline');
    const id = await deployedWorkflow(tenant, readGraph());

    // Act
    const run = await tenant.call('POST', `/api/workflows/${id}/execute`, {
      docs: {
        name: 'otters.csv',
        base64: Buffer.from('name,age\nada,3\n').toString('base64'),
        type: 'text/csv',
      },
    });

    // Assess
    expect(run.status).toBe(200);
    expect(run.body.output.text).toBe('name, age\nada, 3');
    expect(run.body.output.files[0]).toMatchObject({
      name: 'otters.csv',
      url: expect.stringMatching(/^http/),
    });
  });

  it('refuses an upload over 20 MB with 413 naming the limit, and an upload into a stranger workspace with 404', async () => {
    // Prepare
    const tenant = await service.newTenant('files-refused');
    const stranger = await service.newTenant('files-stranger');

    // Act
    const tooLarge = await tenant.call('POST', '/api/files/upload-url', {
      workspaceId: tenant.workspaceId,
      name: 'huge.bin',
      type: 'application/octet-stream',
      size: 21 * 1024 * 1024,
    });
    const foreign = await stranger.call('POST', '/api/files/upload-url', {
      workspaceId: tenant.workspaceId,
      name: 'x.bin',
      type: 'application/octet-stream',
      size: 3,
    });

    // Assess
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.code).toBe('PAYLOAD_TOO_LARGE');
    expect(tooLarge.body.error).toContain('(20 MB)');
    expect(foreign.status).toBe(404);
  });
});
