import type { S3Client } from '@aws-sdk/client-s3';
import { decorated, localOptions, onResetClients, region } from './client-options';
import { loadS3Sdk } from './sdk-on-demand';
import { optionalEnv } from './require-env';

let s3: Promise<S3Client> | undefined;
onResetClients(() => {
  s3 = undefined;
});

/**
 * The process's S3 client, made with the first call that needs one. The SDK is loaded then, not at
 * init: the routes that carry the blob store (adapters/s3/blob-store.ts) reach S3 only for graphs
 * over the inline limit and for files, and requiring client-s3 is about 30 ms of a cold start.
 */
export function s3Client(): Promise<S3Client> {
  s3 ??= loadS3Sdk().then(({ S3Client }) =>
    decorated(
      new S3Client({
        region: region(),
        ...localOptions(optionalEnv('S3_ENDPOINT')),
        forcePathStyle: Boolean(optionalEnv('S3_ENDPOINT')),
        // Local S3 emulators store aws-chunked framing verbatim unless checksums are only sent when required.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      }),
      'S3',
    ),
  );
  return s3;
}
