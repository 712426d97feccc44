/**
 * Wiring of workspace environment variables: the DynamoDB store and the envelope cipher, wrapped by
 * KMS when `ENVIRONMENT_KEY_ARN` is set (AWS) or by the local key file named by
 * `ENVIRONMENT_KEY_FILE` (the local emulators). The cipher is resolved on first use, so functions that
 * never encrypt or decrypt (delete) need neither variable.
 */
import { DynamoEnvironmentStore } from '../../adapters/dynamodb/environment-store';
import { KmsKeyWrapper } from '../../adapters/kms/kms-key-wrapper';
import { keys } from '../../catalog/resources';
import { createEnvelopeCipher } from '../../core/environment/envelope';
import type { EnvironmentDeps } from '../../core/environment/service';
import type { SecretCipher } from '../../core/environment/types';
import { identityDeps } from './identity';
import { overrides } from './overrides';
import { optionalEnv } from '../../adapters/aws/require-env';

/** One cipher per key, so its cache of unwrapped data keys lives as long as the process. */
const ciphers = new Map<string, SecretCipher>();

function resolveCipher(): SecretCipher {
  const keyArn = optionalEnv(keys.environment.envVar);
  const keyFile = optionalEnv(keys.environment.local.envVar);
  const id = keyArn ? `kms:${keyArn}` : keyFile ? `file:${keyFile}` : undefined;
  if (!id) {
    throw new Error(
      `Neither ${keys.environment.envVar} nor ${keys.environment.local.envVar} is set: ` +
        'environment variables cannot be encrypted or decrypted',
    );
  }
  let cipher = ciphers.get(id);
  if (!cipher) {
    cipher = createEnvelopeCipher(
      keyArn ? KmsKeyWrapper.environmentFromEnv() : keyFileWrapper(keyFile as string),
    );
    ciphers.set(id, cipher);
  }
  return cipher;
}

function keyFileWrapper(keyFile: string) {
  if (!overrides.keyFileWrapper)
    throw new Error(
      `${keys.environment.local.envVar} is read by the local server only, which was not started`,
    );
  return overrides.keyFileWrapper(keyFile);
}

/** The environment cipher of this process (KMS or the local key file, chosen on first use). */
export const environmentCipher: SecretCipher = {
  encrypt: (plaintext, context) => resolveCipher().encrypt(plaintext, context),
  decrypt: (ciphertext, context) => resolveCipher().decrypt(ciphertext, context),
};

/** Store + cipher (+ identity for the management routes); `loadEnvironment` needs only the first two. */
export function environmentDeps(): EnvironmentDeps {
  return {
    identity: identityDeps().store,
    environment: DynamoEnvironmentStore.fromEnv(),
    cipher: environmentCipher,
    now: () => new Date(),
  };
}
