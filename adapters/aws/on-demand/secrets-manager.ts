/** What of client-secrets-manager adapters/secrets/secret-string.ts calls, loaded with its first read (see ./s3.ts). */
export { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
