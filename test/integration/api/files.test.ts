/**
 * Files as a client meets them on the local emulators: every input shape, upload URLs, the File block
 * reading real PDF, DOCX, XLSX and CSV documents made here, a file passed through a function block
 * and downloaded with plain fetch, the size limits, other workspaces' files, and the log's `files`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Document, Packer, Paragraph } from 'docx';
import ExcelJS from 'exceljs';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { block, edge, graphOf } from '../../../core/engine/builders';
import {
  deployedWorkflow,
  fileEchoGraph,
  fileReadGraph as readGraph,
  finishedJob,
  request,
  type Tenant,
  useLocalService,
} from '../../support/service';

process.env.RATE_LIMITS_JSON = JSON.stringify({
  free: {
    api: { requestsPerMinute: 60_000, maxBurst: 60_000 },
    sync: { requestsPerMinute: 60_000, maxBurst: 60_000 },
  },
});
delete process.env.USAGE_LIMITS_JSON;

const service = useLocalService({ allowLoopbackOutbound: true });

/** Serves `/<name>` from `served`, as a public file host would. */
const served = new Map<string, { type: string; bytes: Uint8Array }>();
let host: Server;
let hostUrl: string;

beforeAll(async () => {
  host = createServer((request, response) => {
    const file = served.get(decodeURIComponent(request.url?.slice(1) ?? ''));
    if (!file) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': file.type, 'content-length': file.bytes.length });
    response.end(file.bytes);
  });
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  hostUrl = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => host.close(resolve));
});

async function pdfWith(lines: string[]): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (const line of lines) pdf.addPage().drawText(line, { x: 50, y: 700, font, size: 14 });
  return pdf.save();
}

async function docxWith(paragraphs: string[]): Promise<Uint8Array> {
  const document = new Document({ sections: [{ children: paragraphs.map((text) => new Paragraph(text)) }] });
  return new Uint8Array(await Packer.toBuffer(document));
}

async function xlsxWith(rows: Array<Array<string | number>>): Promise<Uint8Array> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('Orders');
  for (const row of rows) sheet.addRow(row);
  return new Uint8Array(await workbook.xlsx.writeBuffer());
}

const base64 = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64');

async function download(url: string): Promise<{ status: number; bytes: Buffer }> {
  const response = await fetch(url);
  return { status: response.status, bytes: Buffer.from(await response.arrayBuffer()) };
}

/** An upload URL for a text file of `size` bytes in the tenant's workspace. */
async function textUpload(tenant: Tenant, name: string, size: number) {
  const upload = await tenant.call('POST', '/api/files/upload-url', {
    workspaceId: tenant.workspaceId,
    name,
    type: 'text/plain',
    size,
  });
  expect(upload.status, JSON.stringify(upload.body)).toBe(200);
  return upload.body.data as { uploadUrl: string; file: { key: string; url: string } };
}

function putTo(uploadUrl: string, body: Uint8Array | string, type = 'text/plain') {
  return fetch(uploadUrl, { method: 'PUT', headers: { 'content-type': type }, body });
}

async function execute(tenant: Tenant, workflowId: string, body: unknown) {
  return tenant.call('POST', `/api/workflows/${workflowId}/execute`, body);
}

describe('file inputs', () => {
  it('takes each of the four input shapes and answers stored file objects that download with fetch', async () => {
    // Prepare
    const tenant = await service.get().newTenant('shapes');
    const workflowId = await deployedWorkflow(tenant, fileEchoGraph());
    const text = 'hello, files';
    served.set('hosted.txt', { type: 'text/plain', bytes: Buffer.from(text) });
    const shapes = [
      { name: 'inline.txt', base64: base64(text), type: 'text/plain' },
      { name: 'linked.txt', url: `${hostUrl}/hosted.txt`, type: 'text/plain' },
      {
        type: 'file',
        data: `data:text/plain;base64,${base64(text)}`,
        name: 'client.txt',
        mime: 'text/plain',
      },
      { type: 'url', data: `${hostUrl}/hosted.txt`, name: 'client-url.txt', mime: 'text/plain' },
    ];

    for (const shape of shapes) {
      // Act
      const answer = await execute(tenant, workflowId, { docs: shape });

      // Assess
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const [file] = answer.body.output.docs;
      expect(file).toMatchObject({
        name: (shape as { name: string }).name,
        type: 'text/plain',
        size: text.length,
      });
      expect(file.key).toMatch(new RegExp(`^files/${tenant.workspaceId}/[^/]+/file_[0-9a-f]{32}/`));
      const downloaded = await download(file.url);
      expect(downloaded.status).toBe(200);
      expect(downloaded.bytes.toString()).toBe(text);
    }
  });

  it('takes a list of files, and one file object alone as a list of one', async () => {
    // Prepare
    const tenant = await service.get().newTenant('lists');
    const workflowId = await deployedWorkflow(tenant, fileEchoGraph());
    const file = (name: string) => ({ name, base64: base64(name), type: 'text/plain' });

    // Act
    const many = await execute(tenant, workflowId, { docs: [file('a.txt'), file('b.txt')] });
    const one = await execute(tenant, workflowId, { docs: file('c.txt') });

    // Assess
    expect(many.body.output.docs.map((doc: { name: string }) => doc.name)).toEqual(['a.txt', 'b.txt']);
    expect(one.body.output.docs.map((doc: { name: string }) => doc.name)).toEqual(['c.txt']);
  });

  it('refuses a malformed file input with a 400 naming the field', async () => {
    // Prepare
    const tenant = await service.get().newTenant('malformed');
    const workflowId = await deployedWorkflow(tenant, fileEchoGraph());

    // Act
    const badBase64 = await execute(tenant, workflowId, {
      docs: { name: 'a', base64: '!!not base64!!', type: 'text/plain' },
    });
    const noContent = await execute(tenant, workflowId, { docs: [{ name: 'a.txt', type: 'text/plain' }] });
    const badDataUri = await execute(tenant, workflowId, {
      docs: { type: 'file', data: 'hello', name: 'a', mime: 'text/plain' },
    });
    const missing = await execute(tenant, workflowId, {
      docs: { name: 'gone.txt', url: `${hostUrl}/gone.txt` },
    });

    // Assess
    for (const answer of [badBase64, noContent, badDataUri, missing]) {
      expect(answer.status).toBe(400);
      expect(answer.body.details?.[0]?.path).toBe('docs[0]');
    }
    expect(missing.body.error).toMatch(/HTTP 404/);
  });

  it('answers 413 for a file over 20 MB and for a body over 10 MB', async () => {
    // Prepare
    const tenant = await service.get().newTenant('sizes');
    const workflowId = await deployedWorkflow(tenant, fileEchoGraph());
    served.set('big.bin', { type: 'application/octet-stream', bytes: new Uint8Array(20 * 1024 * 1024 + 1) });

    // Act
    const bigFile = await execute(tenant, workflowId, {
      docs: { name: 'big.bin', url: `${hostUrl}/big.bin` },
    });
    const bigBody = await execute(tenant, workflowId, {
      docs: { name: 'x.bin', base64: 'A'.repeat(11 * 1024 * 1024), type: 'application/octet-stream' },
    });

    // Assess
    expect(bigFile.status).toBe(413);
    expect(bigFile.body.error).toMatch(/docs\[0\].*larger than 20 MB/);
    expect(bigBody.status).toBe(413);
    expect(bigBody.body.error).toMatch(/10 MB/);
  });

  it('takes a large file through an upload URL, and only in the workspace it was made for', async () => {
    // Prepare
    const tenant = await service.get().newTenant('upload');
    const other = await service.get().newTenant('upload-other');
    const workflowId = await deployedWorkflow(tenant, fileEchoGraph());
    const otherWorkflowId = await deployedWorkflow(other, fileEchoGraph());
    const bytes = Buffer.alloc(12 * 1024 * 1024, 7);
    const upload = await tenant.call('POST', '/api/files/upload-url', {
      workspaceId: tenant.workspaceId,
      name: 'large.bin',
      type: 'application/octet-stream',
      size: bytes.length,
    });
    expect(upload.status, JSON.stringify(upload.body)).toBe(200);
    const put = await fetch(upload.body.data.uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': 'application/octet-stream' },
      body: bytes,
    });
    expect(put.status).toBe(200);
    const passed = { name: 'large.bin', url: upload.body.data.file.url, type: 'application/octet-stream' };

    // Act
    const answer = await execute(tenant, workflowId, { docs: passed });
    const foreign = await execute(other, otherWorkflowId, { docs: passed });
    const foreignUpload = await other.call('POST', '/api/files/upload-url', {
      workspaceId: tenant.workspaceId,
      name: 'x.bin',
      size: 3,
    });
    const tooLarge = await tenant.call('POST', '/api/files/upload-url', {
      workspaceId: tenant.workspaceId,
      name: 'huge.bin',
      size: 21 * 1024 * 1024,
    });

    // Assess
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const [file] = answer.body.output.docs;
    expect(file.size).toBe(bytes.length);
    expect((await download(file.url)).bytes.equals(bytes)).toBe(true);
    expect(foreign.status).toBe(400);
    expect(foreign.body.details[0]).toEqual({
      path: 'docs[0]',
      message: 'the file was not found in this workspace',
    });
    expect(foreignUpload.status).toBe(404);
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.code).toBe('PAYLOAD_TOO_LARGE');
    expect(JSON.stringify(tooLarge.body)).toContain('size');
  });

  it('holds an upload to the size and type it was asked for: S3 refuses more bytes or another type', async () => {
    // Prepare
    const tenant = await service.get().newTenant('upload-size');
    const workflowId = await deployedWorkflow(tenant, fileEchoGraph());
    const upload = await textUpload(tenant, 'small.txt', 10);
    const put = (body: Uint8Array | string, type: string) => putTo(upload.uploadUrl, body, type);

    // Act
    const larger = await put(new Uint8Array(25 * 1024 * 1024), 'text/plain');
    const html = await put('<script>1', 'text/html');
    const unused = await execute(tenant, workflowId, {
      docs: { name: 'small.txt', url: upload.file.url, type: 'text/plain' },
    });
    const exact = await put('0123456789', 'text/plain');
    const used = await execute(tenant, workflowId, {
      docs: { name: 'small.txt', url: upload.file.url, type: 'text/plain' },
    });

    // Assess
    expect(larger.status).toBe(403);
    expect(await larger.text()).toContain('<Code>SignatureDoesNotMatch</Code>');
    expect(html.status).toBe(403);
    expect(unused.status).toBe(400);
    expect(exact.status).toBe(200);
    expect(used.status, JSON.stringify(used.body)).toBe(200);
    expect(used.body.output.docs[0].size).toBe(10);
  });

  /** The probe: a file object of one's own workspace whose key walks into another's. */
  const forgedObject = (key: string) => ({
    id: 'file_x',
    name: 'x.txt',
    type: 'text/plain',
    size: 1,
    url: 'http://x/',
    key,
  });
  const within = (key: string) => key.slice('files/'.length);

  it.each([
    [
      'a file object whose key climbs out with ..',
      (own: string, key: string) => forgedObject(`files/${own}/../${within(key)}`),
    ],
    [
      'a file object whose key has an empty segment',
      (own: string, key: string) => forgedObject(`files/${own}//../${within(key)}`),
    ],
    [
      'a bucket URL with an encoded slash',
      (own: string, key: string, url: string) => ({
        name: 'x.txt',
        url: url.replace(`/${key}`, `/files/${own}/..%2F${within(key)}`),
      }),
    ],
  ])(
    "refuses %s into another workspace's file with a 400, and answers no URL of it",
    async (_what, forge) => {
      // Prepare
      const owner = await service.get().newTenant('dotdot-owner');
      const thief = await service.get().newTenant('dotdot-thief');
      const thiefFlow = await deployedWorkflow(thief, fileEchoGraph());
      const { uploadUrl, file } = await textUpload(owner, 'secret.txt', 6);
      expect((await putTo(uploadUrl, 'secret')).status).toBe(200);
      const docs = forge(thief.workspaceId, file.key, file.url);

      // Act
      const answer = await execute(thief, thiefFlow, { docs: [docs] });

      // Assess
      expect(answer.status).toBe(400);
      expect(answer.body.details[0].path).toBe('docs[0]');
      expect(JSON.stringify(answer.body)).not.toContain('secret');
      expect(JSON.stringify(answer.body)).not.toContain('X-Amz-Signature');
    },
  );

  it("refuses a file object that names another workspace's file", async () => {
    // Prepare
    const owner = await service.get().newTenant('owner');
    const thief = await service.get().newTenant('thief');
    const ownerFlow = await deployedWorkflow(owner, fileEchoGraph());
    const thiefFlow = await deployedWorkflow(thief, readGraph());
    const stored = await execute(owner, ownerFlow, {
      docs: { name: 'secret.txt', base64: base64('secret'), type: 'text/plain' },
    });
    const file = stored.body.output.docs[0];

    // Act
    const answer = await execute(thief, thiefFlow, { docs: file });

    // Assess
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).not.toContain('secret');
  });
});

describe('the File block', () => {
  it('extracts the text of PDF, DOCX, XLSX, CSV, HTML, JSON, Markdown and plain text', async () => {
    // Prepare
    const tenant = await service.get().newTenant('parse');
    const workflowId = await deployedWorkflow(tenant, readGraph());
    const documents: Array<{ name: string; type: string; bytes: Uint8Array; expected: string[] }> = [
      {
        name: 'report.pdf',
        type: 'application/pdf',
        bytes: await pdfWith(['Quarterly report', 'Page two']),
        expected: ['Quarterly report', 'Page two'],
      },
      {
        name: 'letter.docx',
        type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
        bytes: await docxWith(['Dear reader,', 'Thanks for the files.']),
        expected: ['Dear reader,', 'Thanks for the files.'],
      },
      {
        name: 'orders.xlsx',
        type: 'application/octet-stream',
        bytes: await xlsxWith([
          ['sku', 'qty'],
          ['A-1', 3],
        ]),
        expected: ['Orders', 'sku, qty', 'A-1, 3'],
      },
      {
        name: 'prices.csv',
        type: 'text/csv',
        bytes: Buffer.from('item,price\n"tea, green",2.5\n'),
        expected: ['item, price', 'tea, green, 2.5'],
      },
      {
        name: 'page.html',
        type: 'text/html',
        bytes: Buffer.from('<html><body><p>Hello <b>web</b></p><script>x()</script></body></html>'),
        expected: ['Hello web'],
      },
      {
        name: 'data.json',
        type: 'application/json',
        bytes: Buffer.from('{"a":[1,2]}'),
        expected: ['"a": ['],
      },
      {
        name: 'notes.md',
        type: 'text/markdown',
        bytes: Buffer.from('# Title\n\n- item'),
        expected: ['# Title', '- item'],
      },
      { name: 'plain.txt', type: 'text/plain', bytes: Buffer.from('just text'), expected: ['just text'] },
    ];

    for (const document of documents) {
      // Act
      const answer = await execute(tenant, workflowId, {
        docs: { name: document.name, base64: base64(document.bytes), type: document.type },
      });

      // Assess
      expect(answer.status, `${document.name}: ${JSON.stringify(answer.body)}`).toBe(200);
      for (const text of document.expected) expect(answer.body.output.text, document.name).toContain(text);
      expect(answer.body.output.text).not.toContain('x()');
      const [file] = answer.body.output.files;
      const download = await fetch(file.url);
      expect(download.headers.get('content-disposition'), document.name).toMatch(/^attachment; filename="/);
      expect(file.size).toBe(document.bytes.length);
      expect(Buffer.from(file.base64, 'base64').equals(Buffer.from(document.bytes))).toBe(true);
    }
  });

  it('detects the type from content, then from the name, over what the sender declared', async () => {
    // Prepare
    const tenant = await service.get().newTenant('detect');
    const workflowId = await deployedWorkflow(tenant, readGraph());
    const pdf = await pdfWith(['Sniffed']);

    // Act
    const answer = await execute(tenant, workflowId, {
      docs: [
        { name: 'no-extension', base64: base64(pdf), type: 'application/octet-stream' },
        { name: 'table.csv', base64: base64('a,b\n1,2'), type: 'application/octet-stream' },
      ],
    });

    // Assess
    expect(answer.body.output.files.map((file: { type: string }) => file.type)).toEqual([
      'application/pdf',
      'text/csv',
    ]);
    expect(answer.body.output.text).toContain('Sniffed');
    expect(answer.body.output.text).toContain('a, b');
  });

  it('reads a public URL given in its config, and fails the run for a URL that is missing', async () => {
    // Prepare
    const tenant = await service.get().newTenant('config-url');
    served.set('remote.csv', { type: 'text/csv', bytes: Buffer.from('x,y\n5,6') });
    const graph = (url: string) =>
      graphOf(
        [
          block('start', 'start', 'Start', { inputFormat: [] }),
          block('read', 'file', 'Read', { files: url }),
          block('respond', 'response', 'Respond', { data: '<read.combinedContent>' }),
        ],
        [edge('start', 'read'), edge('read', 'respond')],
      );
    const found = await deployedWorkflow(tenant, graph(`${hostUrl}/remote.csv`));
    const missing = await deployedWorkflow(tenant, graph(`${hostUrl}/nothing.csv`));

    // Act
    const ok = await execute(tenant, found, {});
    const failed = await execute(tenant, missing, {});

    // Assess
    expect(ok.body.output).toBe('x, y\n5, 6');
    expect(failed.status).toBe(500);
    expect(failed.body.error).toMatch(/File block "Read".*HTTP 404/);
  });

  it('passes a file through a function block to the response, where its URL downloads the bytes', async () => {
    // Prepare
    const tenant = await service.get().newTenant('through');
    const pdf = await pdfWith(['Carried along']);
    const graph = graphOf(
      [
        block('start', 'start', 'Start', { inputFormat: [{ name: 'docs', type: 'files' }] }),
        block('read', 'file', 'Read', { files: '<start.docs>' }),
        block('pick', 'function', 'Pick', {
          code: 'const file = <read.files[0]>; return { file, name: <read.files[0].name>, length: <read.files[0].base64>.length };',
        }),
        block('respond', 'response', 'Respond', {
          data: { report: '<pick.result.file>', name: '<pick.result.name>', length: '<pick.result.length>' },
        }),
      ],
      [edge('start', 'read'), edge('read', 'pick'), edge('pick', 'respond')],
    );
    const workflowId = await deployedWorkflow(tenant, graph);

    // Act
    const answer = await execute(tenant, workflowId, {
      docs: { name: 'carry.pdf', base64: base64(pdf), type: 'application/pdf' },
    });

    // Assess
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.output.name).toBe('carry.pdf');
    expect(answer.body.output.length).toBe(base64(pdf).length);
    const downloaded = await download(answer.body.output.report.url);
    expect(downloaded.status).toBe(200);
    expect(downloaded.bytes.equals(Buffer.from(pdf))).toBe(true);
  });

  it('reads a large document off the event loop and gives its URL without base64', async () => {
    // Prepare
    const tenant = await service.get().newTenant('large');
    const workflowId = await deployedWorkflow(tenant, readGraph());
    const csv = `id,value\n${Array.from({ length: 120_000 }, (_, i) => `${i},${i * 2}`).join('\n')}`;

    // Act
    const answer = await execute(tenant, workflowId, {
      docs: { name: 'big.csv', base64: base64(csv), type: 'text/csv' },
    });

    // Assess
    expect(answer.status, JSON.stringify(answer.body).slice(0, 500)).toBe(200);
    const [file] = answer.body.output.files;
    expect(file.size).toBe(csv.length);
    expect(file.base64).toBeUndefined();
    expect(answer.body.output.text).toContain('119999, 239998');
  });
});

describe('file objects in every answer', () => {
  it('appear in the output of an async job and in the done frame of a streamed run', async () => {
    // Prepare
    const tenant = await service.get().newTenant('answers');
    const workflowId = await deployedWorkflow(tenant, fileEchoGraph());
    const docs = { name: 'j.txt', base64: base64('job file'), type: 'text/plain' };
    const headers = { 'x-api-key': tenant.apiKey };

    // Act
    const queued = await request(service.get().url, 'POST', `/api/workflows/${workflowId}/execute`, {
      headers: { ...headers, 'X-Execution-Mode': 'async' },
      body: { docs },
    });
    const job = await finishedJob(tenant, queued.body.taskId);
    const streamed = await fetch(`${service.get().url}/api/workflows/${workflowId}/execute`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ docs, stream: true }),
    });
    const frames = (await streamed.text())
      .split('\n\n')
      .filter((frame) => frame.startsWith('data: {'))
      .map((frame) => JSON.parse(frame.slice(6)));

    // Assess
    const jobFile = job.body.output.docs[0];
    expect((await download(jobFile.url)).bytes.toString()).toBe('job file');
    const done = frames.find((frame) => frame.event === 'done');
    expect(done.output.docs[0]).toMatchObject({ name: 'j.txt', type: 'text/plain', size: 8 });
    expect((await download(done.output.docs[0].url)).bytes.toString()).toBe('job file');
  });
});

describe("the log's files", () => {
  it('lists the files a run took in and made, as file objects with id and key; null when none', async () => {
    // Prepare
    const tenant = await service.get().newTenant('logged');
    const workflowId = await deployedWorkflow(tenant, readGraph());
    const withFiles = await execute(tenant, workflowId, {
      docs: { name: 'n.txt', base64: base64('note'), type: 'text/plain' },
    });
    const plainFlow = await deployedWorkflow(
      tenant,
      graphOf([block('start', 'start', 'Start', { inputFormat: [] })]),
    );
    const without = await execute(tenant, plainFlow, {});

    // Act
    const logged = await tenant.call(
      'GET',
      `/api/v1/logs?workspaceId=${tenant.workspaceId}&executionId=${withFiles.body.metadata.executionId}`,
    );
    const none = await tenant.call(
      'GET',
      `/api/v1/logs?workspaceId=${tenant.workspaceId}&executionId=${without.body.metadata.executionId}`,
    );

    // Assess
    const files = logged.body.data[0].files;
    expect(files).toHaveLength(1);
    expect(files[0]).toEqual({
      id: expect.stringMatching(/^file_/),
      key: expect.stringMatching(new RegExp(`^files/${tenant.workspaceId}/`)),
      name: 'n.txt',
      url: expect.any(String),
      type: 'text/plain',
      size: 4,
    });
    expect(none.body.data[0].files).toBeNull();
  });
});
