import { buckets } from '../../catalog/resources';
import { type BlobStore, createS3BlobStore } from '../../adapters/s3/blob-store';

/** Large items (graphs, trace spans, checkpoints) go to the files bucket behind a pointer. */
export function blobStore(): BlobStore {
  const bucket = process.env[buckets.files.envVar];
  if (!bucket) throw new Error(`Environment variable ${buckets.files.envVar} is not set`);
  return createS3BlobStore(bucket);
}
