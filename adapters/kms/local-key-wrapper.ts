/**
 * KeyWrapper for the local emulators: a key file of 32 random bytes under the data dir stands in for the
 * KMS key. Data keys are wrapped with AES-256-GCM under it, with the context as additional data, so
 * the envelope format and code path are the ones used with KMS; only the wrapping differs.
 *
 * Wrapped data key: `<key id, 8 bytes> <iv, 12> <tag, 16> <encrypted data key, 32>`, where the key
 * id is the start of the key file's SHA-256, so a data dir read with another key file fails clearly.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { type DataKey, type KeyWrapper, SecretDecryptionError } from '../../core/environment/envelope';
import { meter } from '../metering';

export const LOCAL_KEY_LENGTH = 32;
const keyIdLength = 8;
const ivLength = 12;
const tagLength = 16;

export class LocalKeyWrapper implements KeyWrapper {
  readonly scheme = 'file';
  private readonly key: Promise<{ secret: Buffer; id: Buffer }>;

  /** `key` is the key-encryption key, or a promise of it (read lazily from the key file). */
  constructor(key: Buffer | Promise<Buffer>) {
    this.key = Promise.resolve(key).then((secret) => {
      if (secret.length !== LOCAL_KEY_LENGTH) {
        throw new Error(`The local key must be ${LOCAL_KEY_LENGTH} bytes, not ${secret.length}`);
      }
      return { secret, id: createHash('sha256').update(secret).digest().subarray(0, keyIdLength) };
    });
    // Reported on first use, not as an unhandled rejection.
    this.key.catch(() => undefined);
  }

  /** Reads the key file on first use; the local emulators create it (ensureLocalKeyFile). */
  static fromFile(path: string): LocalKeyWrapper {
    return new LocalKeyWrapper(readLocalKeyFile(path));
  }

  async generateDataKey(context: string): Promise<DataKey> {
    // The call KMS would answer in AWS, counted as one (bench/cost).
    meter({ kind: 'aws', service: 'KMS', operation: 'GenerateDataKey' });
    const { secret, id } = await this.key;
    const plaintext = randomBytes(32);
    const iv = randomBytes(ivLength);
    const cipher = createCipheriv('aes-256-gcm', secret, iv, { authTagLength: tagLength });
    cipher.setAAD(wrappingData(context));
    const wrapped = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return { plaintext, encrypted: Buffer.concat([id, iv, cipher.getAuthTag(), wrapped]) };
  }

  async decryptDataKey(encrypted: Uint8Array, context: string): Promise<Uint8Array> {
    meter({ kind: 'aws', service: 'KMS', operation: 'Decrypt' });
    const { secret, id } = await this.key;
    const blob = Buffer.from(encrypted);
    if (blob.length !== keyIdLength + ivLength + tagLength + 32) {
      throw new SecretDecryptionError('The wrapped data key has the wrong length');
    }
    if (!blob.subarray(0, keyIdLength).equals(id)) {
      throw new SecretDecryptionError('The secret was encrypted under another local key file');
    }
    const iv = blob.subarray(keyIdLength, keyIdLength + ivLength);
    const tag = blob.subarray(keyIdLength + ivLength, keyIdLength + ivLength + tagLength);
    try {
      const decipher = createDecipheriv('aes-256-gcm', secret, iv, { authTagLength: tagLength });
      decipher.setAAD(wrappingData(context));
      decipher.setAuthTag(tag);
      return Buffer.concat([
        decipher.update(blob.subarray(keyIdLength + ivLength + tagLength)),
        decipher.final(),
      ]);
    } catch (error) {
      throw new SecretDecryptionError('The data key does not unwrap for this workspace', { cause: error });
    }
  }
}

function wrappingData(context: string): Buffer {
  return Buffer.from(`envkey1.${context}`, 'utf8');
}

export async function readLocalKeyFile(path: string): Promise<Buffer> {
  let key: Buffer;
  try {
    key = await readFile(path);
  } catch (error) {
    throw new Error(`Cannot read the local key file ${path} (the local emulators create it on start)`, {
      cause: error,
    });
  }
  if (key.length !== LOCAL_KEY_LENGTH) {
    throw new Error(`The local key file ${path} must hold ${LOCAL_KEY_LENGTH} bytes; it holds ${key.length}`);
  }
  return key;
}

/**
 * Creates the key file with 32 random bytes and mode 0600 unless it exists; an existing file is
 * kept (losing it would make every stored secret unreadable) and only checked.
 */
export async function ensureLocalKeyFile(path: string): Promise<{ created: boolean }> {
  try {
    await writeFile(path, randomBytes(LOCAL_KEY_LENGTH), { mode: 0o600, flag: 'wx' });
    await chmod(path, 0o600);
    return { created: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  await readLocalKeyFile(path);
  return { created: false };
}
