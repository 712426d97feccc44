/**
 * KMS's GenerateDataKey and Decrypt (the calls of adapters/kms/kms-key-wrapper.ts) over the local
 * key files: each catalog key's local ARN wraps data keys with its key file, bound to the whole
 * encryption context, so a data key unwraps only with the context it was made for, as in KMS.
 */
import { LocalKeyWrapper } from '../../adapters/kms/local-key-wrapper';
import { SecretDecryptionError } from '../../core/environment/envelope';
import { AwsApiError, type AwsApiService } from './aws-api-server';

/** The text a context binds a data key to: its entries sorted, as KMS treats them as a set. */
function contextText(context: unknown): string {
  const entries = Object.entries((context ?? {}) as Record<string, string>).sort(([a], [b]) =>
    a.localeCompare(b),
  );
  return JSON.stringify(entries);
}

/** `keyFiles`: the path of the key file behind each local key ARN. */
export function createKmsApi(keyFiles: Record<string, string>): AwsApiService {
  const wrappers = new Map<string, LocalKeyWrapper>();
  const wrapperOf = (keyId: unknown) => {
    const file = keyFiles[String(keyId)];
    if (!file) throw new AwsApiError('NotFoundException', `Key '${keyId}' does not exist`);
    let wrapper = wrappers.get(file);
    if (!wrapper) {
      wrapper = LocalKeyWrapper.fromFile(file);
      wrappers.set(file, wrapper);
    }
    return wrapper;
  };
  return {
    claims: { target: 'TrentService' },
    async handle({ operation, body }) {
      switch (operation) {
        case 'GenerateDataKey': {
          const key = await wrapperOf(body.KeyId).generateDataKey(contextText(body.EncryptionContext));
          return {
            KeyId: body.KeyId,
            Plaintext: Buffer.from(key.plaintext).toString('base64'),
            CiphertextBlob: Buffer.from(key.encrypted).toString('base64'),
          };
        }
        case 'Decrypt':
          try {
            const blob = Buffer.from(String(body.CiphertextBlob ?? ''), 'base64');
            const plaintext = await wrapperOf(body.KeyId).decryptDataKey(
              blob,
              contextText(body.EncryptionContext),
            );
            return {
              KeyId: body.KeyId,
              Plaintext: Buffer.from(plaintext).toString('base64'),
              EncryptionAlgorithm: 'SYMMETRIC_DEFAULT',
            };
          } catch (error) {
            if (error instanceof SecretDecryptionError)
              throw new AwsApiError('InvalidCiphertextException', error.message);
            throw error;
          }
        default:
          throw new AwsApiError('UnknownOperationException', `KMS ${operation} is not served locally`);
      }
    },
  };
}
