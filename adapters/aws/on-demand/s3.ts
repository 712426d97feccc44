/**
 * What of client-s3 and the presigner the service calls (adapters/aws/s3-client.ts,
 * adapters/s3/blob-store.ts), the module adapters/aws/sdk-on-demand.ts loads with the first S3 call.
 * A dynamic import keeps every export of the module it names, so it names this one rather than the
 * package: the side file carries these and what they use, not every S3 command. The presigner is
 * here rather than in a file of its own because it signs with the client it is given: both must
 * come from the one copy of the SDK's core that this side file carries.
 */
export {
  DeleteObjectCommand,
  GetObjectCommand,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
export { getSignedUrl } from '@aws-sdk/s3-request-presigner';
