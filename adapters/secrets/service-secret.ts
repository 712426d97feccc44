/**
 * A secret the service made for itself, read once per process: from Secrets Manager in AWS (the ARN
 * in the secret's variable), or from the local emulators' key file (its path in the local variable).
 */
import { readFile } from 'node:fs/promises';
import type { SecretDefinition } from '../../catalog/resources';
import { secretStringOf } from './secret-string';
import { optionalEnv } from '../aws/require-env';

const cache = new Map<string, Promise<Uint8Array>>();

export function serviceSecret(definition: SecretDefinition): () => Promise<Uint8Array> {
  return () => {
    const file = optionalEnv(definition.local.envVar);
    const arn = optionalEnv(definition.envVar);
    const id = file ? `file:${file}` : arn ? `arn:${arn}` : undefined;
    if (!id) {
      return Promise.reject(
        new Error(
          `Neither ${definition.envVar} nor ${definition.local.envVar} is set: ${definition.description}`,
        ),
      );
    }
    let value = cache.get(id);
    if (!value) {
      value = file
        ? readFile(file).then((bytes) => new Uint8Array(bytes))
        : secretStringOf(arn as string).then((text) => new Uint8Array(Buffer.from(text, 'utf8')));
      // A failed read is tried again by the next request rather than cached.
      value.catch(() => cache.delete(id));
      cache.set(id, value);
    }
    return value;
  };
}
