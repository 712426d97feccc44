/**
 * A secret's value from AWS Secrets Manager, by ARN or name. The SDK is loaded with the first read:
 * the service reads each secret once per process, so no cold start pays for it.
 */
import { loadSecretsManagerSdk } from '../aws/sdk-on-demand';

export async function secretStringOf(secretId: string): Promise<string> {
  const { GetSecretValueCommand, SecretsManagerClient } = await loadSecretsManagerSdk();
  const answer = await new SecretsManagerClient({}).send(new GetSecretValueCommand({ SecretId: secretId }));
  if (!answer.SecretString) throw new Error(`Secret ${secretId} is empty`);
  return answer.SecretString;
}
