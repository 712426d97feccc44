/**
 * AWS SDK packages that a function loads with the first call that needs them rather than at its
 * cold start (bench/BUNDLES.md, "Fourth pass" and "The SDK in the bundles").
 *
 * The bundles carry the SDK (lib/bundling.ts): esbuild turns each `import()` below into the lazy
 * evaluation of that client's modules inside the bundle, which share the bundle's one copy of the
 * SDK's core, so nothing is looked up outside the function and the runtime's own SDK is never
 * reached. Each names a module of ./on-demand that re-exports only what the service calls: a
 * dynamic import keeps every export of the module it names. From the sources (tests, the local
 * server) it is an ordinary dynamic import.
 */
type S3Sdk = typeof import('./on-demand/s3');
type S3Presigner = typeof import('./on-demand/s3-presigner');
type KmsSdk = typeof import('./on-demand/kms');
type SecretsManagerSdk = typeof import('./on-demand/secrets-manager');
export type BedrockSdk = typeof import('./on-demand/bedrock-runtime');

export const loadS3Sdk = (): Promise<S3Sdk> => import('./on-demand/s3');

export const loadS3Presigner = (): Promise<S3Presigner> => import('./on-demand/s3-presigner');

export const loadKmsSdk = (): Promise<KmsSdk> => import('./on-demand/kms');

export const loadSecretsManagerSdk = (): Promise<SecretsManagerSdk> => import('./on-demand/secrets-manager');

export const loadBedrockSdk = (): Promise<BedrockSdk> => import('./on-demand/bedrock-runtime');
