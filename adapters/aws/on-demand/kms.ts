/** What of client-kms the key wrapper (adapters/kms/kms-key-wrapper.ts) calls, loaded with its first call (see ./s3.ts). */
export {
  DecryptCommand,
  GenerateDataKeyCommand,
  InvalidCiphertextException,
  KMSClient,
} from '@aws-sdk/client-kms';
