/**
 * What of client-s3 the service calls (adapters/aws/s3-client.ts, adapters/s3/blob-store.ts), the
 * module adapters/aws/sdk-on-demand.ts loads with the first S3 call. A dynamic import keeps every
 * export of the module it names in a bundle, so it names this one rather than the package: the
 * bundles carry these and what they use, not every S3 command.
 */
export {
  DeleteObjectCommand,
  GetObjectCommand,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
