/** Wiring of files: the files bucket, the guarded client for file URLs, the presigned URL lifetime. */
import { createGuardedHttpClient } from '../../adapters/http/guarded-client';
import type { FilePresigner } from '../../core/files/collect';
import { defaultUrlExpiryInSeconds, type FileDeps } from '../../core/files/service';
import { overrides } from './overrides';
import { blobStore } from './storage';

export function fileDeps(): FileDeps {
  return {
    blobs: blobStore(),
    // Production always uses the strict guard; only the local test service may override it.
    http: overrides.http ?? createGuardedHttpClient({ maxRedirects: 5 }),
    urlExpiryInSeconds: fileUrlExpiryInSeconds(),
  };
}

/** `FILE_URL_EXPIRY_SECONDS` (default 3600): how long presigned file URLs stay valid; at most 7 days, as S3 allows. */
export function fileUrlExpiryInSeconds(): number {
  const raw = process.env.FILE_URL_EXPIRY_SECONDS;
  if (raw === undefined || raw === '') return defaultUrlExpiryInSeconds;
  const seconds = Number(raw);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > 604_800)
    throw new Error('FILE_URL_EXPIRY_SECONDS must be a whole number of seconds from 1 to 604800');
  return seconds;
}

/** Presigned GETs of kept files, for answers read after their URLs were made. */
export function filePresigner(): FilePresigner {
  const blobs = blobStore();
  const expiry = fileUrlExpiryInSeconds();
  return (key) => blobs.presignGet(key, expiry);
}
