/** File inputs through the client library: File, Blob, Buffer, Uint8Array and URLs, stored by the service. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileInput, WorkflowClient } from '../../sdk/src/index';
import { deployedWorkflow, fileEchoGraph, useLocalService } from '../support/service';

const service = useLocalService({ allowLoopbackOutbound: true });

/** Serves /hosted.txt, as a public file host would. */
let host: Server;
let hostUrl: string;
beforeAll(async () => {
  host = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' }).end('hosted text');
  });
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  hostUrl = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => host.close(resolve));
});

async function contentOf(url: string): Promise<string> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  return response.text();
}

describe('file inputs through the client library', () => {
  it('sends File, Blob, Buffer, Uint8Array and ArrayBuffer as files the service stores', async () => {
    // Prepare
    const tenant = await service.get().newTenant('files');
    const id = await deployedWorkflow(tenant, fileEchoGraph());
    const client = new WorkflowClient({ apiKey: tenant.apiKey, baseUrl: service.get().url });
    const docs = [
      new File(['from a File'], 'report.txt', { type: 'text/plain' }),
      new Blob(['{"from":"a Blob"}'], { type: 'application/json' }),
      Buffer.from('from a Buffer'),
      new TextEncoder().encode('from a Uint8Array'),
      new TextEncoder().encode('from an ArrayBuffer').buffer,
    ];

    // Act
    const result = await client.execute(id, { input: { docs } });

    // Assess
    const stored = result.output.docs;
    expect(stored.map((file: { name: string; type: string }) => [file.name, file.type])).toEqual([
      ['report.txt', 'text/plain'],
      ['blob', 'application/json'],
      ['file', 'application/octet-stream'],
      ['file', 'application/octet-stream'],
      ['file', 'application/octet-stream'],
    ]);
    const contents = await Promise.all(stored.map((file: { url: string }) => contentOf(file.url)));
    expect(contents).toEqual([
      'from a File',
      '{"from":"a Blob"}',
      'from a Buffer',
      'from a Uint8Array',
      'from an ArrayBuffer',
    ]);
    expect(stored[0]).toMatchObject({ size: 'from a File'.length });
  });

  it('names bytes with fileInput, and passes a {type: "url"} input through for the service to fetch', async () => {
    // Prepare
    const tenant = await service.get().newTenant('files');
    const id = await deployedWorkflow(tenant, fileEchoGraph());
    const client = new WorkflowClient({ apiKey: tenant.apiKey, baseUrl: service.get().url });
    const named = await fileInput(Buffer.from('a,b\n1,2\n'), { name: 'table.csv', mime: 'text/csv' });
    const linked = { type: 'url', data: `${hostUrl}/hosted.txt`, name: 'hosted.txt', mime: 'text/plain' };

    // Act
    const result = await client.execute(id, { input: { docs: [named, linked] } });

    // Assess
    const [csv, hosted] = result.output.docs;
    expect(named).toEqual({
      type: 'file',
      data: `data:text/csv;base64,${Buffer.from('a,b\n1,2\n').toString('base64')}`,
      name: 'table.csv',
      mime: 'text/csv',
    });
    expect(csv).toMatchObject({ name: 'table.csv', type: 'text/csv' });
    expect(await contentOf(csv.url)).toBe('a,b\n1,2\n');
    expect(hosted).toMatchObject({ name: 'hosted.txt', type: 'text/plain' });
    expect(await contentOf(hosted.url)).toBe('hosted text');
  });
});
