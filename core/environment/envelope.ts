/**
 * Envelope encryption: every `encrypt` asks the key wrapper for a fresh 256-bit data key, encrypts
 * the value locally with AES-256-GCM under that key, and stores the data key only in its wrapped
 * (encrypted) form next to the ciphertext. The wrapper is KMS in AWS and a local key file on a
 * laptop; the format and this code are the same for both.
 *
 * Ciphertext format (one string, `.`-separated, binary parts in base64url):
 *
 *   env1.<scheme>.<wrapped data key>.<iv>.<tag>.<ciphertext>
 *
 * `scheme` names the wrapper (`kms`, `file`) so a ciphertext reaching the wrong one fails clearly.
 * The context (the workspace id) is both the wrapper's encryption context and the GCM additional
 * authenticated data, so a ciphertext moved to another workspace does not decrypt, and any change
 * to any part fails the GCM tag check.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SecretCipher } from './types';

export const ENVELOPE_VERSION = 'env1';
const ivLength = 12;
const tagLength = 16;
const dataKeyLength = 32;

export interface DataKey {
  /** The data key in clear: used once, then overwritten. */
  plaintext: Uint8Array;
  /** The same key wrapped by the key-encryption key; only this form is stored. */
  encrypted: Uint8Array;
}

/** Port: who holds the key-encryption key (KMS in AWS, a local key file locally). */
export interface KeyWrapper {
  /** Short name written into every ciphertext, e.g. `kms` or `file`; letters and digits only. */
  readonly scheme: string;
  /** A fresh 256-bit data key, in clear and wrapped under `context`. */
  generateDataKey(context: string): Promise<DataKey>;
  /** Unwraps a data key; throws SecretDecryptionError when it was not wrapped under `context`. */
  decryptDataKey(encrypted: Uint8Array, context: string): Promise<Uint8Array>;
}

/** A stored secret that does not decrypt: altered, moved to another workspace, or under another key. */
export class SecretDecryptionError extends Error {
  constructor(message = 'The secret could not be decrypted', options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SecretDecryptionError';
  }
}

export interface EnvelopeCipherOptions {
  /**
   * How long an unwrapped data key is kept in memory, so that reading the same value again (a
   * workflow run after a list) does not call KMS again. 0 turns the cache off. Default 5 minutes.
   */
  cacheTtlMs?: number;
  /** Most data keys kept at once; the oldest goes first. Default 1000. */
  cacheSize?: number;
  now?: () => number;
}

interface CachedKey {
  key: Buffer;
  expiresAt: number;
}

export function createEnvelopeCipher(wrapper: KeyWrapper, options: EnvelopeCipherOptions = {}): SecretCipher {
  if (!/^[a-z0-9]+$/.test(wrapper.scheme)) throw new Error(`Invalid key wrapper scheme "${wrapper.scheme}"`);
  const ttl = options.cacheTtlMs ?? 5 * 60_000;
  const maxEntries = options.cacheSize ?? 1000;
  const now = options.now ?? Date.now;
  const cache = new Map<string, CachedKey>();

  async function dataKeyFor(encrypted: Buffer, context: string): Promise<Buffer> {
    // The context is part of the cache key: a cached key never skips the wrapper's context check.
    const cacheKey = `${context}\n${encrypted.toString('base64url')}`;
    const cached = cache.get(cacheKey);
    if (cached && cached.expiresAt > now()) return cached.key;
    if (cached) cache.delete(cacheKey);
    const key = Buffer.from(await wrapper.decryptDataKey(encrypted, context));
    if (key.length !== dataKeyLength) throw new SecretDecryptionError('The data key has the wrong length');
    if (ttl > 0) {
      cache.set(cacheKey, { key, expiresAt: now() + ttl });
      while (cache.size > maxEntries) cache.delete(cache.keys().next().value as string);
    }
    return key;
  }

  return {
    async encrypt(plaintext, context) {
      requireContext(context);
      const dataKey = await wrapper.generateDataKey(context);
      const key = Buffer.from(dataKey.plaintext);
      try {
        if (key.length !== dataKeyLength)
          throw new Error('The key wrapper gave a data key of the wrong length');
        const iv = randomBytes(ivLength);
        const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: tagLength });
        cipher.setAAD(additionalData(wrapper.scheme, context));
        const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
        return [
          ENVELOPE_VERSION,
          wrapper.scheme,
          Buffer.from(dataKey.encrypted).toString('base64url'),
          iv.toString('base64url'),
          cipher.getAuthTag().toString('base64url'),
          ciphertext.toString('base64url'),
        ].join('.');
      } finally {
        key.fill(0);
        dataKey.plaintext.fill(0);
      }
    },

    async decrypt(ciphertext, context) {
      requireContext(context);
      const parts = parseEnvelope(ciphertext);
      if (parts.scheme !== wrapper.scheme) {
        throw new SecretDecryptionError(
          `The secret was encrypted with the "${parts.scheme}" key wrapper, not "${wrapper.scheme}"`,
        );
      }
      const key = await dataKeyFor(parts.encryptedKey, context);
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, parts.iv, { authTagLength: tagLength });
        decipher.setAAD(additionalData(parts.scheme, context));
        decipher.setAuthTag(parts.tag);
        return Buffer.concat([decipher.update(parts.ciphertext), decipher.final()]).toString('utf8');
      } catch (error) {
        throw new SecretDecryptionError(
          'The secret could not be decrypted: it was altered or belongs to another workspace',
          { cause: error },
        );
      } finally {
        if (ttl <= 0) key.fill(0);
      }
    },
  };
}

function requireContext(context: string): void {
  if (typeof context !== 'string' || context.length === 0) {
    throw new Error('An encryption context (the workspace id) is required');
  }
}

function additionalData(scheme: string, context: string): Buffer {
  return Buffer.from(`${ENVELOPE_VERSION}.${scheme}.${context}`, 'utf8');
}

interface EnvelopeParts {
  scheme: string;
  encryptedKey: Buffer;
  iv: Buffer;
  tag: Buffer;
  ciphertext: Buffer;
}

const base64url = /^[A-Za-z0-9_-]*$/;

export function parseEnvelope(text: string): EnvelopeParts {
  const parts = typeof text === 'string' ? text.split('.') : [];
  if (
    parts.length !== 6 ||
    parts[0] !== ENVELOPE_VERSION ||
    !parts.slice(2).every((p) => base64url.test(p))
  ) {
    throw new SecretDecryptionError('The secret is not in the expected envelope format');
  }
  const [, scheme, encryptedKey, iv, tag, ciphertext] = parts;
  const decoded = {
    scheme,
    encryptedKey: Buffer.from(encryptedKey, 'base64url'),
    iv: Buffer.from(iv, 'base64url'),
    tag: Buffer.from(tag, 'base64url'),
    ciphertext: Buffer.from(ciphertext, 'base64url'),
  };
  if (
    decoded.iv.length !== ivLength ||
    decoded.tag.length !== tagLength ||
    decoded.encryptedKey.length === 0
  ) {
    throw new SecretDecryptionError('The secret is not in the expected envelope format');
  }
  return decoded;
}
