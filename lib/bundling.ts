/**
 * The esbuild options of every Lambda bundle, in ONE place. The CDK stacks (through NodejsFunction)
 * and `scripts/bundle.ts` (through the esbuild JS API) both derive their options from `bundle`
 * below, so what the bundle script measures is what gets deployed.
 */
import type { BuildOptions } from 'esbuild';
import { type BundlingOptions, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';

/**
 * The document parsers of the File block (adapters/files/extract.ts) weigh about 4 MB bundled, more
 * than everything else a function carries. They stay out of every bundle, loaded on first use, and
 * are installed (from package-lock.json) beside the bundles of the functions that run blocks
 * (`runsBlocks` in catalog/routes.ts); no other function carries them or pays for them at start.
 */
export const documentReaderModules = [
  'unpdf',
  'mammoth',
  'exceljs',
  'csv-parse',
  'html-to-text',
  'file-type',
] as const;

export const bundle = {
  minify: true,
  /** Linked `index.js.map`; functions run with NODE_OPTIONS=--enable-source-maps for real stack traces. */
  sourcemap: true,
  /** The Lambda runtime is nodejs22.x. */
  target: 'node22',
  /**
   * CommonJS: the bundle lands in a directory without a package.json, where Node treats `.js` as
   * CommonJS; it also keeps `require` of CommonJS-only dependencies working without shims.
   */
  format: 'cjs',
  /**
   * The nodejs22.x runtime ships the AWS SDK for JavaScript v3, so the SDK is left out of every
   * bundle: bundles stay small (cold start grows with bundle size; the SDK is most of a handler's
   * weight) and build fast. The price: in AWS the handlers use the runtime's SDK version, which AWS
   * updates on its own schedule and which may differ from the version pinned in package-lock.json
   * (the version used by tests and the local server). Handlers must therefore only use SDK APIs
   * that are not brand new; if one ever needs a newer SDK, drop the external for that package.
   */
  external: ['@aws-sdk/*', ...documentReaderModules],
  /**
   * The sandbox pool finds its worker script through `import.meta.url` only when it runs from the
   * TypeScript sources; a CommonJS bundle starts itself as the worker instead (adapters/sandbox/pool.ts),
   * so the empty `import.meta` there is expected.
   */
  logOverride: { 'empty-import-meta': 'silent' },
} as const;

/** Options for NodejsFunction's `bundling`. */
export const nodejsFunctionBundling: BundlingOptions = {
  minify: bundle.minify,
  sourceMap: bundle.sourcemap,
  target: bundle.target,
  format: OutputFormat.CJS,
  externalModules: [...bundle.external],
  esbuildArgs: {
    '--log-override': Object.entries(bundle.logOverride).map(([name, level]) => `${name}=${level}`),
  },
};

/** NodejsFunction's `bundling` for a function that runs blocks: the document parsers beside it. */
export const blockRunnerBundling: BundlingOptions = {
  ...nodejsFunctionBundling,
  nodeModules: [...documentReaderModules],
};

/** Options for esbuild's JS API (`build`), the same choices as NodejsFunction's command line. */
export const esbuildBuildOptions = {
  bundle: true,
  platform: 'node',
  minify: bundle.minify,
  sourcemap: bundle.sourcemap,
  target: bundle.target,
  format: bundle.format,
  external: [...bundle.external],
  logOverride: bundle.logOverride,
} satisfies BuildOptions;
