/**
 * Wiring of presigned file URLs: their lifetime and the presigner. Apart from ./files.ts, so the
 * routes that only show files (logs, jobs) or hand out upload URLs carry no guarded HTTP client.
 */
import type { FilePresigner } from '../../core/files/collect';
import { defaultUrlExpiryInSeconds, type FileUrlDeps } from '../../core/files/service';
import { blobStore } from './storage';

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

/** The files bucket and the URL lifetime: what handing out upload URLs needs. */
export function fileUrlDeps(): FileUrlDeps {
  return { blobs: blobStore(), urlExpiryInSeconds: fileUrlExpiryInSeconds() };
}
