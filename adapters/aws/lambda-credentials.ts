/**
 * What a Lambda bundle has in place of `@aws-sdk/credential-provider-node`, the module every SDK
 * client's default configuration imports for its credentials (lib/bundling.ts aliases it here).
 *
 * The Lambda runtime hands a function its role's credentials in AWS_ACCESS_KEY_ID,
 * AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, and the bundle mode of the local server sets the
 * same variables, so the first link of the SDK's default chain is the only one a function ever
 * uses. The others (SSO, the shared ini files, processes, web identity, container and instance
 * metadata) bring the STS, SSO and SSO-OIDC clients with them: about 135 KB that V8 parsed at every
 * cold start for nothing, some 20 ms of init (bench/BUNDLES.md, "Credentials"). The sources, the
 * tests and the local server keep the SDK's own chain.
 */
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { fromEnv } from '@aws-sdk/credential-provider-env';

type ProviderInit = Parameters<typeof fromEnv>[0];

/** The variables the Lambda runtime sets, named in the error when they are missing. */
const credentialVariables = 'AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (with AWS_SESSION_TOKEN)';

export class LambdaCredentialsError extends Error {
  override readonly name = 'LambdaCredentialsError';
}

/** The SDK's `defaultProvider`, reduced to its first link: the credentials in the environment. */
export function defaultProvider(init: ProviderInit = {}): AwsCredentialIdentityProvider {
  const fromEnvironment = fromEnv(init);
  return async () => {
    try {
      return await fromEnvironment();
    } catch (error) {
      throw new LambdaCredentialsError(
        `No AWS credentials: a Lambda bundle reads them from ${credentialVariables}, which the Lambda runtime sets; this bundle has no other source of credentials (lib/bundling.ts)`,
        { cause: error },
      );
    }
  };
}

/** As the SDK's own: credentials with an expiry are refreshed five minutes before it. */
const refreshBeforeExpiryInMs = 300_000;

export const credentialsWillNeedRefresh = (credentials?: AwsCredentialIdentity): boolean =>
  credentials?.expiration !== undefined;

export const credentialsTreatedAsExpired = (credentials?: AwsCredentialIdentity): boolean =>
  credentials?.expiration !== undefined &&
  credentials.expiration.getTime() - Date.now() < refreshBeforeExpiryInMs;
