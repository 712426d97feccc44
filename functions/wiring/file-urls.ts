/**
 * Wiring of presigned file URLs: their lifetime and the presigner. Apart from ./files.ts, so the
 * routes that only show files (logs, jobs) or hand out upload URLs carry no guarded HTTP client.
 */
import type { FilePresigner } from '../../core/files/collect';
import type { FileUrlDeps } from '../../core/files/service';
import { blobStore } from './storage';
import { setting } from '../settings';

/** `FILE_URL_EXPIRY_SECONDS` (default 3600): how long presigned file URLs stay valid; at most 7 days, as S3 allows. */
export function fileUrlExpiryInSeconds(): number {
  return setting('FILE_URL_EXPIRY_SECONDS');
}

/** Presigned GETs of kept files, for answers read after their URLs were made. */
export function filePresigner(): FilePresigner {
  const blobs = blobStore();
  const expiry = fileUrlExpiryInSeconds();
  return (key) => blobs.presignGet(key, expiry);
}

/** The files bucket and the URL lifetime: what handing out upload URLs needs. */
export function fileUrlDeps(): FileUrlDeps {
  return { blobs: blobStore(), urlExpiryInSeconds: fileUrlExpiryInSeconds() };
}
