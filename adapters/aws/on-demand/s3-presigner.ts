/** What of s3-request-presigner the blob store calls, loaded with its first presigned URL (see ./s3.ts). */
export { getSignedUrl } from '@aws-sdk/s3-request-presigner';
