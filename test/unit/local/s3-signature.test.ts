import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, describe, expect, it } from 'vitest';
import { checkS3Request, type S3RequestToCheck } from '../../../local/emulators/s3-signature';

const endpoint = 'http://127.0.0.1:4569';
const signedAt = new Date('2026-03-01T10:00:00Z');
const keys = new Map([['local', 'local']]);
const at = (date: Date) => ({ keys, now: () => date });
const later = (seconds: number) => new Date(signedAt.getTime() + seconds * 1000);

function clientWith(secretAccessKey: string, accessKeyId = 'local'): S3Client {
  return new S3Client({
    region: 'us-east-1',
    endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    // The request the client would send, captured instead of sent.
    requestHandler: {
      handle: async (request: never) => {
        captured.push(request);
        return { response: { statusCode: 200, headers: {}, body: undefined } } as never;
      },
    },
  });
}
const captured: Array<{
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
}> = [];
const client = clientWith('local');
afterAll(() => client.destroy());

/** A presigned URL as a request to the emulator, with the headers a client sends with it. */
function requestOf(url: string, method: string, headers: Record<string, string> = {}): S3RequestToCheck {
  const parsed = new URL(url);
  return { method, url: `${parsed.pathname}${parsed.search}`, headers: { host: parsed.host, ...headers } };
}

async function presignedGet(key: string, expiresIn = 300): Promise<string> {
  return getSignedUrl(client, new GetObjectCommand({ Bucket: 'files', Key: key }), {
    expiresIn,
    signingDate: signedAt,
  });
}

/** What an SDK client sends for a call, header-signed at `signedAt`. */
async function headerSigned(sender: S3Client, command: GetObjectCommand | ListObjectsV2Command) {
  captured.length = 0;
  await sender.send(command as never, {}).catch(() => undefined);
  const request = captured[0]!;
  const query = new URLSearchParams(request.query).toString();
  return {
    method: request.method,
    url: `${request.path}${query ? `?${query}` : ''}`,
    headers: request.headers,
  };
}

describe('checkS3Request', () => {
  it('admits a presigned GET as it was signed, until it expires', async () => {
    // Prepare
    const url = await presignedGet('files/ws_a/uploads/f/a b.txt', 300);

    // Act
    const within = await checkS3Request(requestOf(url, 'GET'), at(later(299)));
    const after = await checkS3Request(requestOf(url, 'GET'), at(later(301)));

    // Assess
    expect(within).toBeUndefined();
    expect(after).toEqual({ status: 403, code: 'AccessDenied', message: 'Request has expired' });
  });

  it('refuses a presigned URL whose path, expiry, method or query was changed, or whose signature is missing', async () => {
    // Prepare
    const url = await presignedGet('files/ws_a/uploads/f/a.txt');
    const changed = (change: (url: URL) => void) => {
      const copy = new URL(url);
      change(copy);
      return copy.toString();
    };

    // Act
    const refusals = await Promise.all(
      [
        requestOf(url.replace('/ws_a/', '/ws_b/'), 'GET'),
        requestOf(url.replace('/ws_a/', '/ws_a/../ws_b/'), 'GET'),
        requestOf(
          changed((u) => u.searchParams.set('X-Amz-Expires', '604800')),
          'GET',
        ),
        requestOf(
          changed((u) => u.searchParams.set('response-content-type', 'text/html')),
          'GET',
        ),
        requestOf(url, 'PUT'),
        requestOf(url, 'GET', { host: '127.0.0.1:9' }),
        requestOf(
          changed((u) => u.searchParams.delete('X-Amz-Signature')),
          'GET',
        ),
      ].map((request) => checkS3Request(request, at(later(1)))),
    );

    // Assess
    expect(refusals.map((refusal) => refusal?.status)).toEqual([403, 403, 403, 403, 403, 403, 403]);
    expect(refusals.slice(0, 6).map((refusal) => refusal?.code)).toEqual(
      Array(6).fill('SignatureDoesNotMatch'),
    );
    expect(refusals[6]?.code).toBe('AccessDenied');
  });

  it('holds a presigned PUT to the length and type it was signed with', async () => {
    // Prepare
    const url = await getSignedUrl(
      client,
      new PutObjectCommand({
        Bucket: 'files',
        Key: 'files/ws_a/uploads/f/a.bin',
        ContentType: 'text/plain',
        ContentLength: 10,
      }),
      { expiresIn: 300, signingDate: signedAt, signableHeaders: new Set(['content-type', 'content-length']) },
    );
    const put = (headers: Record<string, string>) =>
      checkS3Request(requestOf(url, 'PUT', headers), at(later(1)));

    // Act
    const exact = await put({ 'content-length': '10', 'content-type': 'text/plain' });
    const longer = await put({ 'content-length': String(25 * 1024 * 1024), 'content-type': 'text/plain' });
    const chunked = await put({ 'transfer-encoding': 'chunked', 'content-type': 'text/plain' });
    const html = await put({ 'content-length': '10', 'content-type': 'text/html' });

    // Assess
    expect(exact).toBeUndefined();
    for (const refusal of [longer, chunked, html])
      expect(refusal).toMatchObject({ status: 403, code: 'SignatureDoesNotMatch' });
  });

  it('refuses a request with no signature, and any listing of a bucket, signed or not', async () => {
    // Prepare
    const listing = await headerSigned(client, new ListObjectsV2Command({ Bucket: 'files' }));

    // Act
    const unsigned = await checkS3Request(
      requestOf(`${endpoint}/files/files/ws_a/uploads/f/a.txt`, 'GET'),
      at(signedAt),
    );
    const unsignedList = await checkS3Request(
      requestOf(`${endpoint}/files?list-type=2`, 'GET'),
      at(signedAt),
    );
    const signedList = await checkS3Request(listing, at(new Date()));

    // Assess
    for (const refusal of [unsigned, unsignedList, signedList])
      expect(refusal).toMatchObject({ status: 403, code: 'AccessDenied' });
  });

  it('admits a header-signed SDK call with the stack key, and refuses another secret, an unknown key and a stale date', async () => {
    // Prepare
    const command = () => new GetObjectCommand({ Bucket: 'files', Key: 'files/ws_a/uploads/f/a b.txt' });
    const good = await headerSigned(client, command());
    const wrongSecret = await headerSigned(clientWith('not-local'), command());
    const unknownKey = await headerSigned(clientWith('local', 'someone'), command());
    const now = new Date();

    // Act
    const results = await Promise.all([
      checkS3Request(good, at(now)),
      checkS3Request(wrongSecret, at(now)),
      checkS3Request(unknownKey, at(now)),
      checkS3Request(good, at(new Date(now.getTime() + 16 * 60 * 1000))),
      checkS3Request({ ...good, url: good.url.replace('/ws_a/', '/ws_b/') }, at(now)),
    ]);

    // Assess
    expect(results[0]).toBeUndefined();
    expect(results.slice(1).map((refusal) => refusal?.code)).toEqual([
      'SignatureDoesNotMatch',
      'InvalidAccessKeyId',
      'RequestTimeTooSkewed',
      'SignatureDoesNotMatch',
    ]);
  });

  it('lets a CORS preflight through, as S3 does', async () => {
    // Act
    const preflight = await checkS3Request(
      { method: 'OPTIONS', url: '/files/x', headers: { origin: 'http://localhost:3000' } },
      at(signedAt),
    );

    // Assess
    expect(preflight).toBeUndefined();
  });
});
