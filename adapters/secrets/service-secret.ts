/**
 * A secret the service made for itself, read once per process: from Secrets Manager in AWS (the ARN
 * in the secret's variable), or from the local stack's key file (its path in the local variable).
 */
import { readFile } from 'node:fs/promises';
import type { SecretDefinition } from '../../catalog/resources';
import { loadSecretsManagerSdk } from '../aws/sdk-on-demand';

const cache = new Map<string, Promise<Uint8Array>>();

export function serviceSecret(definition: SecretDefinition): () => Promise<Uint8Array> {
  return () => {
    const file = process.env[definition.local.envVar];
    const arn = process.env[definition.envVar];
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
        : fromSecretsManager(arn as string);
      // A failed read is tried again by the next request rather than cached.
      value.catch(() => cache.delete(id));
      cache.set(id, value);
    }
    return value;
  };
}

async function fromSecretsManager(arn: string): Promise<Uint8Array> {
  // Read once per process, so the SDK is loaded then rather than with every cold start.
  const { GetSecretValueCommand, SecretsManagerClient } = await loadSecretsManagerSdk();
  const answer = await new SecretsManagerClient({}).send(new GetSecretValueCommand({ SecretId: arn }));
  if (!answer.SecretString) throw new Error(`Secret ${arn} is empty`);
  return new Uint8Array(Buffer.from(answer.SecretString, 'utf8'));
}
