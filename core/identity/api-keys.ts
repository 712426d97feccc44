import { createHash, randomBytes } from 'node:crypto';

const keyPrefix = 'svc_';
const visiblePrefixLength = 12;

export interface GeneratedApiKey {
  key: string;
  hash: string;
  prefix: string;
}

/**
 * A key has 256 random bits, so a fast hash is enough: unlike a password it cannot be guessed
 * from a dictionary, and the hash must be cheap because every request looks it up.
 */
export function generateApiKey(): GeneratedApiKey {
  const key = keyPrefix + randomBytes(32).toString('base64url');
  return { key, hash: hashApiKey(key), prefix: key.slice(0, visiblePrefixLength) };
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function looksLikeApiKey(value: string | undefined): value is string {
  return typeof value === 'string' && value.startsWith(keyPrefix) && value.length > visiblePrefixLength;
}
