import { buckets } from '../../catalog/resources';
import { type BlobStore, createS3BlobStore } from '../../adapters/s3/blob-store';
import { requireEnv } from '../../adapters/aws/require-env';

/** Large items (graphs, trace spans, checkpoints) go to the files bucket behind a pointer. */
export function blobStore(): BlobStore {
  return createS3BlobStore(requireEnv(buckets.files.envVar));
}
