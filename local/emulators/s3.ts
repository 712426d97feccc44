/**
 * S3 API of the local emulators: s3rver, which keeps every object (and its metadata, e.g. Content-Type) as
 * files under the data dir. fauxqs also speaks S3, but only in memory, so s3rver is the one that
 * persists. s3rver checks no SigV4 signature (only the access key id and the expiry), so every
 * request passes through s3-signature.ts first: files are as private as in S3, reachable only by the
 * stack's credentials or a presigned URL exactly as it was signed (plain `fetch` of one works).
 */
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { isIPv4 } from 'node:net';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  CreateBucketCommand,
  HeadBucketCommand,
  PutBucketCorsCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import S3rver, { type S3rverFilesystemStore } from 's3rver';
import s3rverAccount from 's3rver/lib/models/account.js';
import S3Object from 's3rver/lib/models/object.js';
import { buckets } from '../../catalog/resources';
import { closeServer, httpUrl, type RunningService } from './http-server';
import { checkS3Request, type S3Refusal } from './s3-signature';

/** Credentials the local emulators hand out (any value works for dynalite and fauxqs; s3rver knows this one). */
export const LOCAL_ACCESS_KEY_ID = 'local';
export const LOCAL_SECRET_ACCESS_KEY = 'local';

// s3rver refuses access key ids it does not know; it only knows S3RVER out of the box.
s3rverAccount.DUMMY_ACCOUNT.createKeyPair(LOCAL_ACCESS_KEY_ID, LOCAL_SECRET_ACCESS_KEY);

export async function startS3(directory: string, host: string): Promise<RunningService> {
  // Presigned URLs of the files bucket point here; a LAN must not reach it.
  if (!isLoopback(host)) throw new Error(`The local S3 listens on loopback only, not on ${host}`);
  const server = new S3rver({ address: host, port: 0, directory, silent: true, configureBuckets: [] });
  await writeObjectsWhole(server.store, `${directory}-uploads`);
  const { port } = await server.run();
  const httpServer = server.httpServer!;
  admitSignedRequestsOnly(httpServer);
  return {
    endpoint: httpUrl(host, port),
    stop: () => closeServer(httpServer, (done) => httpServer.close(done)),
  };
}

function isLoopback(host: string): boolean {
  if (host === 'localhost' || host === '::1') return true;
  return isIPv4(host) && host.startsWith('127.');
}

/** s3rver's request handler, behind the checks S3 makes (s3-signature.ts); a refusal is S3's XML error. */
function admitSignedRequestsOnly(httpServer: Server): void {
  const [handle] = httpServer.listeners('request') as Array<
    (request: IncomingMessage, response: ServerResponse) => void
  >;
  httpServer.removeAllListeners('request');
  const keys = new Map([[LOCAL_ACCESS_KEY_ID, LOCAL_SECRET_ACCESS_KEY]]);
  httpServer.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const checked = checkS3Request(
      { method: request.method ?? 'GET', url: request.url ?? '/', headers: request.headers },
      { keys, now: () => new Date() },
    );
    checked.then(
      (refusal) => (refusal ? answerRefusal(request, response, refusal) : handle!(request, response)),
      (error: unknown) =>
        answerRefusal(request, response, {
          status: 403,
          code: 'AccessDenied',
          message: `The signature could not be checked: ${(error as Error).message}`,
        }),
    );
  });
}

function answerRefusal(request: IncomingMessage, response: ServerResponse, refusal: S3Refusal): void {
  const body =
    request.method === 'HEAD'
      ? ''
      : `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${refusal.code}</Code><Message>${escapeXml(refusal.message)}</Message></Error>`;
  // The body of a refused upload is not read: the connection closes after the answer.
  response.writeHead(refusal.status, {
    'content-type': 'application/xml',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  });
  response.end(body);
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * s3rver's own putObject answers before the object is in its file: it resolves once the body has
 * gone through its hashing stream, while the file stream still holds the last chunks (a Buffer body
 * has not even been opened), and it truncates the stored object before writing the new one, so a
 * killed process, or an upload cut short, leaves a torn object where the acknowledged one was.
 * Here the body goes to a file of its own under `uploads` and takes the object's place by rename
 * only when every byte has been written, after the md5 and metadata files: the answer follows the
 * write(2) of the last byte (no fsync: a power cut may still lose it), and a PUT that does not
 * finish leaves the previous version whole. What a killed process left in `uploads` is dropped here.
 */
async function writeObjectsWhole(store: S3rverFilesystemStore, uploads: string): Promise<void> {
  await rm(uploads, { recursive: true, force: true });
  await mkdir(uploads, { recursive: true });
  const uploadPath = () => join(uploads, randomBytes(12).toString('hex'));
  const replace = async (path: string, data: string) => {
    const upload = uploadPath();
    try {
      await writeFile(upload, data);
      await rename(upload, path);
    } catch (error) {
      await rm(upload, { force: true });
      throw error;
    }
  };

  store.putObject = async (object) => {
    const path = (resource: string) => store.getResourcePath(object.bucket, object.key, resource);
    const upload = uploadPath();
    try {
      const hash = createHash('md5');
      let size = 0;
      await pipeline(
        Buffer.isBuffer(object.content) ? Readable.from([object.content]) : object.content,
        new Transform({
          transform(chunk: Buffer, _encoding, done) {
            hash.update(chunk);
            size += chunk.length;
            done(null, chunk);
          },
        }),
        createWriteStream(upload),
      );
      const md5 = hash.digest('hex');
      await mkdir(dirname(path('object')), { recursive: true });
      await Promise.all([
        replace(path('object.md5'), md5),
        replace(path('metadata.json'), JSON.stringify(storedMetadata(object.metadata), null, 2)),
      ]);
      await rename(upload, path('object'));
      return { size, md5 };
    } catch (error) {
      await rm(upload, { force: true });
      throw error;
    }
  };
}

/** The headers s3rver keeps beside an object, as its own store picks them. */
function storedMetadata(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).filter(
      ([name]) => S3Object.ALLOWED_METADATA.includes(name) || name.startsWith('x-amz-meta-'),
    ),
  );
}

/**
 * Creates the catalog's buckets that do not exist yet. Each gets a CORS rule that lets a browser page
 * (the form app, served from another origin) use presigned GET and PUT URLs, as the deployed bucket does.
 */
export async function ensureBuckets(client: S3Client): Promise<void> {
  await Promise.all(
    Object.keys(buckets).map(async (name) => {
      if (await bucketExists(client, name)) return;
      await client.send(new CreateBucketCommand({ Bucket: name }));
      await client.send(
        new PutBucketCorsCommand({
          Bucket: name,
          CORSConfiguration: {
            CORSRules: [
              {
                AllowedOrigins: ['*'],
                AllowedMethods: ['GET', 'PUT', 'HEAD'],
                AllowedHeaders: ['*'],
                ExposeHeaders: ['ETag'],
                MaxAgeSeconds: 3000,
              },
            ],
          },
        }),
      );
    }),
  );
}

async function bucketExists(client: S3Client, name: string): Promise<boolean> {
  try {
    await client.send(new HeadBucketCommand({ Bucket: name }));
    return true;
  } catch (error) {
    const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    if (status === 404) return false;
    throw error;
  }
}
