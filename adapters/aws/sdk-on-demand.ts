/**
 * AWS SDK packages that a function loads with the first call that needs them rather than at its
 * cold start (bench/BUNDLES.md, "Fourth pass").
 *
 * In a Lambda bundle (CommonJS, where esbuild leaves `import.meta` empty) the package is
 * `require`d: that finds the runtime's SDK as the bundle's other requires do, and shares their copy
 * of the SDK's core. An `import()` there would look for the package as an ES module, which Node
 * does not resolve through the runtime's NODE_PATH, and would load a second copy of that core. From
 * the sources (tests, the local server) it is imported like every other module.
 */
type S3Sdk = typeof import('@aws-sdk/client-s3');
type S3Presigner = typeof import('@aws-sdk/s3-request-presigner');
type KmsSdk = typeof import('@aws-sdk/client-kms');
type SecretsManagerSdk = typeof import('@aws-sdk/client-secrets-manager');
export type BedrockSdk = typeof import('@aws-sdk/client-bedrock-runtime');

export const loadS3Sdk = (): Promise<S3Sdk> =>
  import.meta.url ? import('@aws-sdk/client-s3') : Promise.resolve(require('@aws-sdk/client-s3') as S3Sdk);

export const loadS3Presigner = (): Promise<S3Presigner> =>
  import.meta.url
    ? import('@aws-sdk/s3-request-presigner')
    : Promise.resolve(require('@aws-sdk/s3-request-presigner') as S3Presigner);

export const loadKmsSdk = (): Promise<KmsSdk> =>
  import.meta.url ? import('@aws-sdk/client-kms') : Promise.resolve(require('@aws-sdk/client-kms') as KmsSdk);

export const loadSecretsManagerSdk = (): Promise<SecretsManagerSdk> =>
  import.meta.url
    ? import('@aws-sdk/client-secrets-manager')
    : Promise.resolve(require('@aws-sdk/client-secrets-manager') as SecretsManagerSdk);

export const loadBedrockSdk = (): Promise<BedrockSdk> =>
  import.meta.url
    ? import('@aws-sdk/client-bedrock-runtime')
    : Promise.resolve(require('@aws-sdk/client-bedrock-runtime') as BedrockSdk);
