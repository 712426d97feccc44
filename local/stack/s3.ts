/**
 * S3 API of the local stack: s3rver, which keeps every object (and its metadata, e.g. Content-Type) as
 * files under the data dir. fauxqs also speaks S3, but only in memory, so s3rver is the one that
 * persists. s3rver accepts SigV4 requests and presigned URLs without checking the signature (it only
 * checks the access key id and the expiry), so presigned GET and PUT URLs work with plain `fetch`.
 */
import {
  CreateBucketCommand,
  HeadBucketCommand,
  PutBucketCorsCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import s3rverAccount from 's3rver/lib/models/account.js';
import { buckets } from '../../catalog/resources';
import { closeServer, httpUrl, type RunningService } from './http-server';

/** Credentials the local stack hands out (any value works for dynalite and fauxqs; s3rver knows this one). */
export const LOCAL_ACCESS_KEY_ID = 'local';
export const LOCAL_SECRET_ACCESS_KEY = 'local';

// s3rver refuses access key ids it does not know; it only knows S3RVER out of the box.
s3rverAccount.DUMMY_ACCOUNT.createKeyPair(LOCAL_ACCESS_KEY_ID, LOCAL_SECRET_ACCESS_KEY);

export async function startS3(directory: string, host: string): Promise<RunningService> {
  const server = new S3rver({ address: host, port: 0, directory, silent: true, configureBuckets: [] });
  const { port } = await server.run();
  const httpServer = server.httpServer!;
  return {
    endpoint: httpUrl(host, port),
    stop: () => closeServer(httpServer, (done) => httpServer.close(done)),
  };
}

/**
 * Creates the catalogue's buckets that do not exist yet. Each gets a CORS rule that lets a browser page
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
