/**
 * AWS SDK packages that a function loads with the first call that needs them rather than at its
 * cold start (bench/BUNDLES.md, "Fourth pass", "The SDK in the bundles" and "Side files").
 *
 * Each `import()` names a module of ./on-demand that re-exports only what the service calls (a
 * dynamic import keeps every export of the module it names). From the sources (tests, the local
 * server) it is an ordinary dynamic import, `.js` naming the `.ts` module. In a Lambda bundle the
 * path stays as written (lib/bundling.ts marks `./on-demand/*` external): each module is a side
 * file of its own, `on-demand/<name>.js` beside index.js, imported with the first call (Node loads
 * it as CommonJS, its exports named), so that V8 neither parses nor evaluates those clients at
 * init. The extension is written because `import()` resolves no other. A side file carries its own copy of the SDK's core, so
 * whatever is used together (the S3 client and the presigner that signs with it) comes from the
 * same side file.
 */
type S3Sdk = typeof import('./on-demand/s3.js');
type KmsSdk = typeof import('./on-demand/kms.js');
type SecretsManagerSdk = typeof import('./on-demand/secrets-manager.js');
export type BedrockSdk = typeof import('./on-demand/bedrock-runtime.js');

export const loadS3Sdk = (): Promise<S3Sdk> => import('./on-demand/s3.js');

/** The presigner signs with the S3 client, so it comes from the S3 module (see ./on-demand/s3.ts). */
export const loadS3Presigner = loadS3Sdk;

export const loadKmsSdk = (): Promise<KmsSdk> => import('./on-demand/kms.js');

export const loadSecretsManagerSdk = (): Promise<SecretsManagerSdk> =>
  import('./on-demand/secrets-manager.js');

export const loadBedrockSdk = (): Promise<BedrockSdk> => import('./on-demand/bedrock-runtime.js');
