/**
 * Secrets Manager's GetSecretValue (adapters/secrets/secret-string.ts) over values the local service
 * holds: the admin key, and the service's own secrets, whose local key files stand in for them.
 */
import { AwsApiError, type AwsApiService } from './aws-api-server';

/** `secrets`: the value of each local secret ARN, read when asked. */
export function createSecretsManagerApi(secrets: Record<string, () => Promise<string>>): AwsApiService {
  return {
    claims: { target: 'secretsmanager' },
    async handle({ operation, body }) {
      if (operation !== 'GetSecretValue')
        throw new AwsApiError(
          'UnknownOperationException',
          `Secrets Manager ${operation} is not served locally`,
        );
      const id = String(body.SecretId ?? '');
      const read = secrets[id];
      if (!read)
        throw new AwsApiError(
          'ResourceNotFoundException',
          "Secrets Manager can't find the specified secret.",
        );
      return {
        ARN: id,
        Name: id.slice(id.lastIndexOf(':') + 1),
        SecretString: await read(),
        VersionId: 'local',
      };
    },
  };
}
