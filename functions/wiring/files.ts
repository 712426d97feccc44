/** Wiring of files: the files bucket, the guarded client for file URLs, the presigned URL lifetime. */
import { guardedHttpClient } from './outbound';
import type { FileDeps } from '../../core/files/service';
import { fileUrlExpiryInSeconds } from './file-urls';
import { overrides } from './overrides';
import { blobStore } from './storage';

export function fileDeps(): FileDeps {
  return {
    blobs: blobStore(),
    // Production always uses the strict guard; only the local test service may override it.
    http: overrides.http ?? guardedHttpClient({ maxRedirects: 5 }),
    urlExpiryInSeconds: fileUrlExpiryInSeconds(),
  };
}
