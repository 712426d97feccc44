/**
 * KeyWrapper on AWS KMS: GenerateDataKey (AES_256) for every encryption and Decrypt to unwrap, both
 * with the encryption context `{<contextKey>: <context>}` (the workspace id), so a wrapped data key
 * only unwraps for the workspace it was made for. KMS never sees the values, only data keys.
 *
 * The KMS SDK is loaded with the first wrap or unwrap, not with the module: the routes that carry
 * the environment wiring mostly never decrypt, and their cold start should not pay for it.
 */
import type { KMSClient } from '@aws-sdk/client-kms';
import { keys } from '../../catalog/resources';
import { type DataKey, type KeyWrapper, SecretDecryptionError } from '../../core/environment/envelope';
import { decorated, region } from '../aws/client-options';
import { requireEnv } from '../aws/require-env';
import { loadKmsSdk } from '../aws/sdk-on-demand';

export interface KmsKeyWrapperOptions {
  /** By default the process's client, made with the first call. */
  client?: KMSClient;
  /** ARN of the customer-managed key; Decrypt is pinned to it. */
  keyArn: string;
  /** Name of the encryption context entry that carries the context. */
  contextKey: string;
}

let processClient: Promise<KMSClient> | undefined;

/** One client per process; region and credentials from the Lambda's environment. */
function kmsClient(): Promise<KMSClient> {
  processClient ??= loadKmsSdk().then(({ KMSClient }) =>
    decorated(new KMSClient({ region: region() }), 'KMS'),
  );
  return processClient;
}

export class KmsKeyWrapper implements KeyWrapper {
  readonly scheme = 'kms';
  private readonly client?: KMSClient;
  private readonly keyArn: string;
  private readonly contextKey: string;

  constructor(options: KmsKeyWrapperOptions) {
    this.client = options.client;
    this.keyArn = options.keyArn;
    this.contextKey = options.contextKey;
  }

  /** The environment key: its ARN from `ENVIRONMENT_KEY_ARN`, the workspace id as context. */
  static environmentFromEnv(): KmsKeyWrapper {
    return new KmsKeyWrapper({
      keyArn: requireEnv(keys.environment.envVar),
      contextKey: keys.environment.encryptionContextKey,
    });
  }

  private kms(): Promise<KMSClient> {
    return this.client ? Promise.resolve(this.client) : kmsClient();
  }

  async generateDataKey(context: string): Promise<DataKey> {
    const { GenerateDataKeyCommand } = await loadKmsSdk();
    const result = await (await this.kms()).send(
      new GenerateDataKeyCommand({
        KeyId: this.keyArn,
        KeySpec: 'AES_256',
        EncryptionContext: { [this.contextKey]: context },
      }),
    );
    if (!result.Plaintext || !result.CiphertextBlob) throw new Error('KMS GenerateDataKey returned no key');
    return { plaintext: result.Plaintext, encrypted: result.CiphertextBlob };
  }

  async decryptDataKey(encrypted: Uint8Array, context: string): Promise<Uint8Array> {
    const { DecryptCommand, InvalidCiphertextException } = await loadKmsSdk();
    try {
      const result = await (await this.kms()).send(
        new DecryptCommand({
          CiphertextBlob: encrypted,
          KeyId: this.keyArn,
          EncryptionContext: { [this.contextKey]: context },
        }),
      );
      if (!result.Plaintext) throw new Error('KMS Decrypt returned no key');
      return result.Plaintext;
    } catch (error) {
      // Wrong context, altered blob or another key: the secret is not this workspace's.
      if (
        error instanceof InvalidCiphertextException ||
        (error as Error).name === 'InvalidCiphertextException'
      ) {
        throw new SecretDecryptionError('KMS refused to unwrap the data key for this workspace', {
          cause: error,
        });
      }
      throw error;
    }
  }
}
