import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetBucketCorsCommand, HeadObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { s3Client } from '../../../adapters/aws/s3-client';
import { S3BlobStore } from '../../../adapters/s3/blob-store';
import { startS3 } from '../../../local/emulators/s3';
import { useLocalEmulators } from '../../support/local-emulators';

describe('local emulators: S3 and the S3 blob store', () => {
  const stack = useLocalEmulators();
  const store = () => new S3BlobStore(stack().env.FILES_BUCKET);

  it('round-trips bytes and content type through a presigned PUT and a presigned GET with plain fetch', async () => {
    // Prepare
    const bytes = new Uint8Array([0, 1, 2, 250, 251, 252, 10, 13]);
    const putUrl = await store().presignPut(
      'uploads/a b/photo.png',
      { contentType: 'image/png', contentLength: bytes.length },
      300,
    );

    // Act
    const put = await fetch(putUrl, { method: 'PUT', body: bytes, headers: { 'content-type': 'image/png' } });
    const getUrl = await store().presignGet('uploads/a b/photo.png', 300);
    const got = await fetch(getUrl);

    // Assess
    expect(put.status).toBe(200);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('image/png');
    expect(new Uint8Array(await got.arrayBuffer())).toEqual(bytes);
  });

  it('serves presigned URLs on the local S3 endpoint', async () => {
    // Act
    const url = new URL(await store().presignGet('any', 60));

    // Assess
    expect(url.origin).toBe(stack().endpoints.s3);
    expect(url.pathname).toBe(`/${stack().env.FILES_BUCKET}/any`);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('60');
  });

  it('reads bytes back with getBytes, and undefined for a key that is not there', async () => {
    // Prepare
    const bytes = new Uint8Array([9, 8, 7, 0, 255]);
    await store().putBytes('files/ws_1/e/f/raw.bin', bytes, 'application/octet-stream');

    // Act
    const back = await store().getBytes('files/ws_1/e/f/raw.bin');
    const missing = await store().getBytes('files/ws_1/e/f/none.bin');

    // Assess
    expect(back).toEqual(bytes);
    expect(missing).toBeUndefined();
  });

  it('finds the key of its own presigned URLs, and of no other URL', async () => {
    // Prepare
    const own = await store().presignGet('files/ws_1/e/f/a b.txt', 60);
    const bucket = stack().env.FILES_BUCKET;

    // Act
    const keys = await Promise.all([
      store().keyOfUrl(own),
      store().keyOfUrl(`${new URL(own).origin}/${bucket}/files/ws_1/x.txt`),
      store().keyOfUrl(`https://example.com/${bucket}/files/ws_1/x.txt`),
      store().keyOfUrl(`${new URL(own).origin}/other-bucket/files/ws_1/x.txt`),
      store().keyOfUrl('not a url'),
    ]);

    // Assess
    expect(keys).toEqual(['files/ws_1/e/f/a b.txt', 'files/ws_1/x.txt', undefined, undefined, undefined]);
  });

  it('refuses an expired presigned GET', async () => {
    // Prepare
    await store().putBytes('expiring.txt', new TextEncoder().encode('soon gone'), 'text/plain');
    const url = new URL(await store().presignGet('expiring.txt', 1));
    url.searchParams.set('X-Amz-Date', '20200101T000000Z');

    // Act
    const got = await fetch(url);

    // Assess
    expect(got.status).toBe(403);
  });

  it('round-trips JSON with putJson and getJson', async () => {
    // Prepare
    const value = { spans: [{ id: 's1', name: 'Shout', duration: 3 }], text: 'héllo ✓' };

    // Act
    await store().putJson('executions/e1/trace.json', value);
    const back = await store().getJson<typeof value>('executions/e1/trace.json');
    const head = await (await s3Client()).send(
      new HeadObjectCommand({ Bucket: stack().env.FILES_BUCKET, Key: 'executions/e1/trace.json' }),
    );

    // Assess
    expect(back).toEqual(value);
    expect(head.ContentType).toBe('application/json');
  });

  it('answers undefined for a JSON blob that does not exist', async () => {
    // Act
    const missing = await store().getJson('executions/none/trace.json');

    // Assess
    expect(missing).toBeUndefined();
  });

  it('stores putBytes content as given', async () => {
    // Prepare
    const bytes = new TextEncoder().encode('a,b\n1,2\n');

    // Act
    await store().putBytes('files/table.csv', bytes, 'text/csv');
    const got = await fetch(await store().presignGet('files/table.csv', 60));

    // Assess
    expect(got.headers.get('content-type')).toBe('text/csv');
    expect(await got.text()).toBe('a,b\n1,2\n');
  });

  it('gives the bucket a CORS rule for browser uploads with presigned URLs', async () => {
    // Act
    const cors = await (await s3Client()).send(
      new GetBucketCorsCommand({ Bucket: stack().env.FILES_BUCKET }),
    );
    const preflight = await fetch(`${stack().endpoints.s3}/${stack().env.FILES_BUCKET}/uploads/x.png`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:3000',
        'access-control-request-method': 'PUT',
        'access-control-request-headers': 'content-type',
      },
    });

    // Assess
    expect(cors.CORSRules?.[0]?.AllowedMethods).toEqual(expect.arrayContaining(['GET', 'PUT']));
    expect(preflight.status).toBe(200);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('serves a presigned GET as an attachment named after the key, so a browser renders no page from it', async () => {
    // Prepare
    await store().putBytes(
      'files/ws_1/e/f/page.html',
      new TextEncoder().encode('<script>x()</script>'),
      'text/html',
    );

    // Act
    const got = await fetch(await store().presignGet('files/ws_1/e/f/page.html', 60));

    // Assess
    expect(got.status).toBe(200);
    expect(got.headers.get('content-disposition')).toBe(
      `attachment; filename="page.html"; filename*=UTF-8''page.html`,
    );
  });
});

describe('the local S3 checks signatures as S3 does', () => {
  const stack = useLocalEmulators();
  const store = () => new S3BlobStore(stack().env.FILES_BUCKET);
  const secret = new TextEncoder().encode('the secret of ws_b');

  async function refusal(response: Response): Promise<{ status: number; code?: string }> {
    const code = /<Code>([^<]+)<\/Code>/.exec(await response.text())?.[1];
    return { status: response.status, code };
  }

  it('refuses a presigned GET with a changed path, a changed expiry or no signature, an unsigned GET and a list request', async () => {
    // Prepare
    await store().putBytes('files/ws_b/e/f/secret.txt', secret, 'text/plain');
    const own = new URL(await store().presignGet('files/ws_a/e/f/mine.txt', 300));
    const other = new URL(own);
    other.pathname = own.pathname.replace('/ws_a/e/f/mine.txt', '/ws_b/e/f/secret.txt');
    const longer = new URL(own);
    longer.searchParams.set('X-Amz-Expires', '604800');
    const unsignedUrl = new URL(own);
    unsignedUrl.searchParams.delete('X-Amz-Signature');
    const bucket = `${stack().endpoints.s3}/${stack().env.FILES_BUCKET}`;

    // Act
    const answers = await Promise.all(
      [
        fetch(other),
        fetch(longer),
        fetch(unsignedUrl),
        fetch(`${bucket}/files/ws_b/e/f/secret.txt`),
        fetch(`${bucket}?list-type=2`),
        fetch(`${stack().endpoints.s3}/`),
      ].map(async (answer) => refusal(await answer)),
    );

    // Assess
    expect(answers).toEqual([
      { status: 403, code: 'SignatureDoesNotMatch' },
      { status: 403, code: 'SignatureDoesNotMatch' },
      { status: 403, code: 'AccessDenied' },
      { status: 403, code: 'AccessDenied' },
      { status: 403, code: 'AccessDenied' },
      { status: 403, code: 'AccessDenied' },
    ]);
  });

  it('refuses a presigned PUT moved onto another key, and leaves that object as it was', async () => {
    // Prepare
    await store().putBytes('files/ws_b/e/f/kept.txt', secret, 'text/plain');
    const own = new URL(
      await store().presignPut(
        'files/ws_a/uploads/f/mine.txt',
        { contentType: 'text/plain', contentLength: 5 },
        300,
      ),
    );
    own.pathname = own.pathname.replace('/ws_a/uploads/f/mine.txt', '/ws_b/e/f/kept.txt');

    // Act
    const put = await fetch(own, { method: 'PUT', body: 'owned', headers: { 'content-type': 'text/plain' } });

    // Assess
    expect(await refusal(put)).toEqual({ status: 403, code: 'SignatureDoesNotMatch' });
    expect(await store().getBytes('files/ws_b/e/f/kept.txt')).toEqual(secret);
  });

  it('refuses a presigned PUT of more bytes, or of another type, than it was signed for, and stores nothing', async () => {
    // Prepare
    const key = 'files/ws_a/uploads/f/small.txt';
    const url = await store().presignPut(key, { contentType: 'text/plain', contentLength: 10 }, 300);

    // Act
    const larger = await fetch(url, {
      method: 'PUT',
      body: new Uint8Array(25 * 1024 * 1024),
      headers: { 'content-type': 'text/plain' },
    });
    const html = await fetch(url, {
      method: 'PUT',
      body: '0123456789',
      headers: { 'content-type': 'text/html' },
    });
    const stored = await store().getBytes(key);
    const exact = await fetch(url, {
      method: 'PUT',
      body: '0123456789',
      headers: { 'content-type': 'text/plain' },
    });

    // Assess
    expect(await refusal(larger)).toEqual({ status: 403, code: 'SignatureDoesNotMatch' });
    expect(await refusal(html)).toEqual({ status: 403, code: 'SignatureDoesNotMatch' });
    expect(stored).toBeUndefined();
    expect(exact.status).toBe(200);
  });

  it('refuses a call signed with another secret, and a listing even when signed with the stack key', async () => {
    // Prepare
    const { S3Client } = await import('@aws-sdk/client-s3');
    const forged = new S3Client({
      region: 'us-east-1',
      endpoint: stack().endpoints.s3,
      forcePathStyle: true,
      credentials: { accessKeyId: 'local', secretAccessKey: 'guessed' },
    });

    // Act
    const [forgedRead, listing] = await Promise.allSettled([
      forged.send(new HeadObjectCommand({ Bucket: stack().env.FILES_BUCKET, Key: 'any' })),
      (await s3Client()).send(new ListObjectsV2Command({ Bucket: stack().env.FILES_BUCKET })),
    ]);

    // Assess
    expect(forgedRead).toMatchObject({ status: 'rejected', reason: { $metadata: { httpStatusCode: 403 } } });
    expect(listing).toMatchObject({
      status: 'rejected',
      reason: { name: 'AccessDenied', $metadata: { httpStatusCode: 403 } },
    });
    forged.destroy();
  });

  it('listens on loopback only', async () => {
    // Prepare
    const directory = await mkdtemp(join(tmpdir(), 's3-host-'));

    // Act
    const attempt = startS3(directory, '0.0.0.0');

    // Assess
    await expect(attempt).rejects.toThrow(/loopback only, not on 0.0.0.0/);
    await rm(directory, { recursive: true, force: true });
  });
});
