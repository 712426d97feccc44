/**
 * AWS SDK packages that a function loads with the first call that needs them rather than at its
 * cold start (bench/BUNDLES.md, "Fourth pass", "The SDK in the bundles" and "Side files").
 *
 * Each `import()` names a module of ./on-demand that re-exports only what the service calls (a
 * dynamic import keeps every export of the module it names). From the sources (tests, the local
 * server) it is an ordinary dynamic import, `.js` naming the `.ts` module. In a Lambda bundle the
 * path stays as written (lib/bundling.ts marks `./on-demand/*` external), which names the side
 * files a bundle needs: each module is a side file of its own, `on-demand/<name>.js` beside
 * index.js, required with the first call (`sideFile`), so that V8 neither parses nor evaluates
 * those clients at init. The extension is written because `import()` resolves no other. A side
 * file carries its own copy of the SDK's core, so whatever is used together (the S3 client and the
 * presigner that signs with it) comes from the same side file.
 */
type S3Sdk = typeof import('./on-demand/s3.js');
type KmsSdk = typeof import('./on-demand/kms.js');
type SecretsManagerSdk = typeof import('./on-demand/secrets-manager.js');
export type BedrockSdk = typeof import('./on-demand/bedrock-runtime.js');

/**
 * In a Lambda bundle (CommonJS, where `import.meta.url` is empty), the side file `name` beside it,
 * required: `import()` of a CommonJS file has Node scan its whole text for its exports before
 * loading it, which for the S3 side file cost three times the `require` (225 against 83 ms of CPU,
 * bench/BUNDLES.md). Named through a variable so that esbuild leaves it as it is. From the sources,
 * none: the caller's `import()` loads the module, and names the side file for the build.
 */
function sideFile<T>(name: string): Promise<T> | undefined {
  if (import.meta.url) return undefined;
  const file = `./on-demand/${name}.js`;
  return new Promise<T>((resolve) => resolve(require(file) as T));
}

export const loadS3Sdk = (): Promise<S3Sdk> => sideFile<S3Sdk>('s3') ?? import('./on-demand/s3.js');

/** The presigner signs with the S3 client, so it comes from the S3 module (see ./on-demand/s3.ts). */
export const loadS3Presigner = loadS3Sdk;

export const loadKmsSdk = (): Promise<KmsSdk> => sideFile<KmsSdk>('kms') ?? import('./on-demand/kms.js');

export const loadSecretsManagerSdk = (): Promise<SecretsManagerSdk> =>
  sideFile<SecretsManagerSdk>('secrets-manager') ?? import('./on-demand/secrets-manager.js');

export const loadBedrockSdk = (): Promise<BedrockSdk> =>
  sideFile<BedrockSdk>('bedrock-runtime') ?? import('./on-demand/bedrock-runtime.js');
