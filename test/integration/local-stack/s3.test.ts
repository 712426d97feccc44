import { GetBucketCorsCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { s3Client } from '../../../adapters/aws/s3-client';
import { S3BlobStore } from '../../../adapters/s3/blob-store';
import { useLocalStack } from '../../support/local-stack';

describe('local stack S3 and the S3 blob store', () => {
  const stack = useLocalStack();
  const store = () => new S3BlobStore(stack().env.FILES_BUCKET);

  it('round-trips bytes and content type through a presigned PUT and a presigned GET with plain fetch', async () => {
    // Prepare
    const bytes = new Uint8Array([0, 1, 2, 250, 251, 252, 10, 13]);
    const putUrl = await store().presignPut('uploads/a b/photo.png', 'image/png', 300);

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
});
