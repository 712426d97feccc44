import { describe, expect, it } from 'vitest';
import type { HttpClient, HttpRequest } from '../../../core/net/http';
import { PayloadTooLargeError, ValidationError } from '../../../core/errors';
import type { BlobStore } from '../../../core/files/blob-store';
import {
  type FileDeps,
  createUploadUrl,
  ingestFileInputs,
  loadFile,
  safeFileName,
  storeFile,
} from '../../../core/files/service';
import { OutboundRequestRefusedError } from '../../../core/net/errors';

class MemoryFiles
  implements Pick<BlobStore, 'putBytes' | 'getBytes' | 'presignGet' | 'presignPut' | 'keyOfUrl'>
{
  readonly objects = new Map<string, { bytes: Uint8Array; type: string }>();
  async putBytes(key: string, bytes: Uint8Array, type: string) {
    this.objects.set(key, { bytes, type });
  }
  async getBytes(key: string) {
    return this.objects.get(key)?.bytes;
  }
  async presignGet(key: string, seconds: number) {
    return `https://files.test/bucket/${key}?expires=${seconds}`;
  }
  async presignPut(key: string, type: string, seconds: number) {
    return `https://files.test/bucket/${key}?put=${type}&expires=${seconds}`;
  }
  async keyOfUrl(url: string) {
    const prefix = 'https://files.test/bucket/';
    return url.startsWith(prefix) ? url.slice(prefix.length).split('?')[0] : undefined;
  }
}

function deps(
  answer?: (
    request: HttpRequest,
  ) => Promise<{ status: number; headers: Record<string, string>; body: Uint8Array }>,
) {
  const requests: HttpRequest[] = [];
  const http: HttpClient = {
    async request(request) {
      requests.push(request);
      if (!answer) throw new Error('no request expected');
      return answer(request);
    },
  };
  const blobs = new MemoryFiles();
  const fileDeps: FileDeps = { blobs, http, urlExpiryInSeconds: 900 };
  return { fileDeps, blobs, requests };
}

const scope = { workspaceId: 'ws_a', executionId: 'exe_1' };
const bytes = (text: string) => new Uint8Array(Buffer.from(text));

describe('storeFile', () => {
  it('keeps the file under its workspace and execution with an unguessable id, and presigns its URL', async () => {
    // Prepare
    const { fileDeps, blobs } = deps();

    // Act
    const file = await storeFile(fileDeps, scope, {
      name: 'report.pdf',
      type: 'application/pdf',
      bytes: bytes('%PDF'),
    });

    // Assess
    expect(file.key).toMatch(/^files\/ws_a\/exe_1\/file_[0-9a-f]{32}\/report\.pdf$/);
    expect(file).toMatchObject({ name: 'report.pdf', type: 'application/pdf', size: 4 });
    expect(file.url).toBe(`https://files.test/bucket/${file.key}?expires=900`);
    expect(blobs.objects.get(file.key)?.type).toBe('application/pdf');
  });

  it('keeps a name that would change the path out of the key', () => {
    // Act
    const names = ['../../etc/passwd', '.hidden', '', 'a/b\\c?.txt'].map(safeFileName);

    // Assess
    expect(names).toEqual(['_.._etc_passwd', 'hidden', 'file', 'a_b_c_.txt']);
  });
});

describe('loadFile', () => {
  it('fetches a URL through the client with the 20 MB cap and takes its content type', async () => {
    // Prepare
    const { fileDeps, requests } = deps(async () => ({
      status: 200,
      headers: { 'content-type': 'text/csv; charset=utf-8' },
      body: bytes('a,b'),
    }));

    // Act
    const content = await loadFile(
      fileDeps,
      'ws_a',
      { kind: 'url', url: 'https://example.com/data/t%201.csv' },
      'docs[0]',
    );

    // Assess
    expect(content).toMatchObject({ name: 't 1.csv', type: 'text/csv' });
    expect(requests[0]).toMatchObject({ method: 'GET', maxResponseBytes: 20 * 1024 * 1024 });
  });

  it('turns a refused URL into a 400 naming the input', async () => {
    // Prepare
    const { fileDeps } = deps(async () => {
      throw new OutboundRequestRefusedError('Address 10.0.0.1 is private');
    });

    // Act
    const attempt = loadFile(fileDeps, 'ws_a', { kind: 'url', url: 'http://10.0.0.1/x' }, 'docs[1]');

    // Assess
    await expect(attempt).rejects.toBeInstanceOf(ValidationError);
    await expect(attempt).rejects.toMatchObject({
      details: [{ path: 'docs[1]', message: expect.stringMatching(/not allowed/) }],
    });
  });

  it('reads a URL of the files bucket by its key, without fetching it, in its own workspace only', async () => {
    // Prepare
    const { fileDeps, blobs, requests } = deps();
    await blobs.putBytes('files/ws_a/uploads/file_1/a.txt', bytes('mine'), 'text/plain');
    await blobs.putBytes('files/ws_b/uploads/file_2/b.txt', bytes('theirs'), 'text/plain');

    // Act
    const mine = await loadFile(
      fileDeps,
      'ws_a',
      { kind: 'url', url: 'https://files.test/bucket/files/ws_a/uploads/file_1/a.txt?sig=1' },
      'docs[0]',
    );
    const theirs = loadFile(
      fileDeps,
      'ws_a',
      { kind: 'url', url: 'https://files.test/bucket/files/ws_b/uploads/file_2/b.txt' },
      'docs[0]',
    );

    // Assess
    expect(Buffer.from(mine.bytes).toString()).toBe('mine');
    await expect(theirs).rejects.toThrow(/not found in this workspace/);
    expect(requests).toHaveLength(0);
  });

  it('refuses a stored file object of another workspace as not found', async () => {
    // Prepare
    const { fileDeps, blobs } = deps();
    await blobs.putBytes('files/ws_b/e/file_2/b.txt', bytes('theirs'), 'text/plain');
    const file = {
      id: 'file_2',
      key: 'files/ws_b/e/file_2/b.txt',
      name: 'b.txt',
      url: 'x',
      type: 'text/plain',
      size: 6,
    };

    // Act
    const attempt = loadFile(fileDeps, 'ws_a', { kind: 'stored', file }, 'docs[0]');

    // Assess
    await expect(attempt).rejects.toThrow(/not found in this workspace/);
  });
});

describe('ingestFileInputs', () => {
  it('stores every files field and leaves other fields as they are', async () => {
    // Prepare
    const { fileDeps } = deps();
    const fields = [
      { name: 'docs', type: 'files' as const },
      { name: 'title', type: 'string' as const },
    ];

    // Act
    const input = await ingestFileInputs(
      fileDeps,
      fields,
      {
        title: 'T',
        docs: [{ name: 'a.txt', base64: Buffer.from('x').toString('base64'), type: 'text/plain' }],
      },
      scope,
    );

    // Assess
    expect(input.title).toBe('T');
    expect(input.docs).toEqual([
      expect.objectContaining({
        name: 'a.txt',
        size: 1,
        key: expect.stringMatching(/^files\/ws_a\/exe_1\//),
      }),
    ]);
  });
});

describe('createUploadUrl', () => {
  it('presigns a PUT under the workspace and answers the file to pass back', async () => {
    // Prepare
    const { fileDeps } = deps();

    // Act
    const { uploadUrl, file } = await createUploadUrl(fileDeps, {
      workspaceId: 'ws_a',
      name: 'big.zip',
      type: 'application/zip',
      size: 10,
    });

    // Assess
    expect(file.key).toMatch(/^files\/ws_a\/uploads\/file_[0-9a-f]{32}\/big\.zip$/);
    expect(uploadUrl).toContain('put=application/zip');
    expect(file).toMatchObject({ name: 'big.zip', size: 10, type: 'application/zip' });
  });

  it('refuses a file over 20 MB with a 413', async () => {
    // Prepare
    const { fileDeps } = deps();

    // Act
    const attempt = createUploadUrl(fileDeps, {
      workspaceId: 'ws_a',
      name: 'huge',
      type: 'application/zip',
      size: 21 * 1024 * 1024,
    });

    // Assess
    await expect(attempt).rejects.toBeInstanceOf(PayloadTooLargeError);
  });
});
