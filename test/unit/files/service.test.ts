import { describe, expect, it } from 'vitest';
import type { HttpClient, HttpRequest } from '../../../core/net/http';
import { PayloadTooLargeError, ValidationError } from '../../../core/errors';
import type { BlobStore, SignedUpload } from '../../../core/files/blob-store';
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
  async presignPut(key: string, upload: SignedUpload, seconds: number) {
    return `https://files.test/bucket/${key}?put=${upload.contentType}&length=${upload.contentLength}&expires=${seconds}`;
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
/** A file id of the shape the service makes: `file_` and 32 hex digits. */
const fileId = (digit: string) => `file_${digit.repeat(32)}`;
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
    await blobs.putBytes(`files/ws_a/uploads/${fileId('1')}/a.txt`, bytes('mine'), 'text/plain');
    await blobs.putBytes(`files/ws_b/uploads/${fileId('2')}/b.txt`, bytes('theirs'), 'text/plain');

    // Act
    const mine = await loadFile(
      fileDeps,
      'ws_a',
      { kind: 'url', url: `https://files.test/bucket/files/ws_a/uploads/${fileId('1')}/a.txt?sig=1` },
      'docs[0]',
    );
    const theirs = loadFile(
      fileDeps,
      'ws_a',
      { kind: 'url', url: `https://files.test/bucket/files/ws_b/uploads/${fileId('2')}/b.txt` },
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
    await blobs.putBytes(`files/ws_b/e/${fileId('2')}/b.txt`, bytes('theirs'), 'text/plain');
    const file = {
      id: fileId('2'),
      key: `files/ws_b/e/${fileId('2')}/b.txt`,
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

describe('loadFile with keys from a caller', () => {
  const secretKey = `files/ws_b/uploads/${fileId('2')}/secret.txt`;
  const escapes = [
    `files/ws_a/../ws_b/uploads/${fileId('2')}/secret.txt`,
    `files/ws_a/./../ws_b/uploads/${fileId('2')}/secret.txt`,
    `files/ws_a//ws_b/uploads/${fileId('2')}/secret.txt`,
    `files/ws_a/..%2Fws_b/uploads/${fileId('2')}/secret.txt`,
  ];

  it.each(escapes)(
    'refuses the file object key %s with a 400 naming the input, and reads nothing',
    async (key) => {
      // Prepare
      const { fileDeps, blobs } = deps();
      await blobs.putBytes(secretKey, bytes('theirs'), 'text/plain');
      const read: string[] = [];
      const getBytes = blobs.getBytes.bind(blobs);
      blobs.getBytes = async (asked: string) => {
        read.push(asked);
        return getBytes(asked);
      };
      const file = { id: fileId('2'), key, name: 'x.txt', url: 'http://x/', type: 'text/plain', size: 1 };

      // Act
      const attempt = loadFile(fileDeps, 'ws_a', { kind: 'stored', file }, 'docs[0]');

      // Assess
      await expect(attempt).rejects.toBeInstanceOf(ValidationError);
      await expect(attempt).rejects.toMatchObject({
        statusCode: 400,
        details: [
          { path: 'docs[0]', message: expect.stringMatching(/not a key of a file this service keeps/) },
        ],
      });
      expect(read).toEqual([]);
    },
  );

  it('refuses a URL of the files bucket whose key escapes the workspace', async () => {
    // Prepare
    const { fileDeps, blobs, requests } = deps();
    await blobs.putBytes(secretKey, bytes('theirs'), 'text/plain');
    // What an S3 URL with ..%2F in a segment decodes to.
    blobs.keyOfUrl = async () => `files/ws_a/../ws_b/uploads/${fileId('2')}/secret.txt`;

    // Act
    const attempt = loadFile(
      fileDeps,
      'ws_a',
      {
        kind: 'url',
        url: `https://files.test/bucket/files/ws_a/..%2Fws_b/uploads/${fileId('2')}/secret.txt`,
      },
      'docs[0]',
    );

    // Assess
    await expect(attempt).rejects.toMatchObject({ statusCode: 400, details: [{ path: 'docs[0]' }] });
    expect(requests).toHaveLength(0);
  });

  it('answers a file object of its own workspace with its id and size from the key and the bytes, and a URL it signed', async () => {
    // Prepare
    const { fileDeps, blobs } = deps();
    const key = `files/ws_a/uploads/${fileId('1')}/a.txt`;
    await blobs.putBytes(key, bytes('mine'), 'text/plain');
    const given = {
      id: 'file_forged',
      key,
      name: 'a.txt',
      url: 'https://evil.example/a.txt',
      type: 'text/plain',
      size: 1,
      base64: Buffer.from('not the bytes').toString('base64'),
    };

    // Act
    const content = await loadFile(fileDeps, 'ws_a', { kind: 'stored', file: given }, 'docs[0]');

    // Assess
    expect(content.stored).toEqual({
      id: fileId('1'),
      key,
      name: 'a.txt',
      url: `https://files.test/bucket/${key}?expires=900`,
      type: 'text/plain',
      size: 4,
    });
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
    expect(uploadUrl).toContain('put=application/zip&length=10');
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
