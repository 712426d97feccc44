/**
 * The esbuild options of every Lambda bundle, in ONE place. The CDK stacks (through NodejsFunction)
 * and `scripts/bundle.ts` (through the esbuild JS API) both derive their options from `bundle`
 * below, so what the bundle script measures is what gets deployed.
 */
import type { BuildOptions } from 'esbuild';
import { type BundlingOptions, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { streamRunFile } from '../catalog/route-definition';
import type { ResourceAccess } from '../catalog/resources';

/**
 * Packages kept out of every bundle and loaded on first use (`import()`), installed (from
 * package-lock.json) beside the bundles of the functions that load them and of no other: a function
 * neither carries them nor pays for them at start, and a run pays only for what it uses.
 */
export const onDemandModules = {
  /** The File block's document parsers (adapters/files/extract.ts), about 4 MB bundled. */
  documentReaders: ['unpdf', 'mammoth', 'exceljs', 'csv-parse', 'html-to-text', 'file-type'],
  /** The model providers' SDKs (adapters/llm), about 530 KB: loaded when a run calls the provider. */
  modelProviders: ['openai', '@anthropic-ai/sdk'],
  /**
   * QuickJS for the function-block sandbox (adapters/sandbox), about 880 KB with the library that
   * drives it: loaded by its worker threads.
   */
  sandbox: ['@jitl/quickjs-singlefile-cjs-release-sync', 'quickjs-emscripten-core'],
  /** nodemailer (adapters/email), about 240 KB: loaded to compose or send the first e-mail. */
  email: ['nodemailer'],
  /** jose (adapters/oidc), about 20 KB: loaded to check the first ID token. */
  singleSignOn: ['jose'],
  /** croner (core/schedules/cron.ts), about 33 KB: loaded to parse or evaluate the first cron. */
  schedules: ['croner'],
  /**
   * ipaddr.js (core/net/ipaddr.ts), about 13 KB: the outbound guard's address parser, loaded to check
   * the first address (an outbound request, a webhook URL, a plain-http OIDC issuer).
   */
  outboundRequests: ['ipaddr.js'],
} as const;

/**
 * The AWS SDK clients a function calls on demand (adapters/aws/sdk-on-demand.ts), each the module
 * `adapters/aws/on-demand/<name>.ts`. A bundle keeps `import("./on-demand/<name>.js")` as written
 * (`external` below), and the module is bundled on its own into the side file
 * `on-demand/<name>.js` beside index.js, in the assets of the functions whose bundles name it: V8
 * parses 200 to 290 KB less at such a cold start (bench/BUNDLES.md, "Side files").
 */
export const onDemandSdkModules = ['s3', 'kms', 'secrets-manager', 'bedrock-runtime'] as const;
export type OnDemandSdkModule = (typeof onDemandSdkModules)[number];
const onDemandSdkImportPrefix = './on-demand/';
/** The source of an on-demand SDK module, relative to the project root. */
export const onDemandSdkEntry = (name: OnDemandSdkModule) => `adapters/aws/on-demand/${name}.ts`;
/** Its side file, relative to the folder of the function's index.js. */
export const onDemandSdkFile = (name: OnDemandSdkModule) => `on-demand/${name}.js`;

/** The on-demand SDK modules that a bundle's external imports (esbuild's metafile) name. */
export function onDemandSdkModulesNamed(importPaths: readonly string[]): OnDemandSdkModule[] {
  return onDemandSdkModules.filter((name) => importPaths.includes(`${onDemandSdkImportPrefix}${name}.js`));
}

/** What of a function of the catalog (catalog/routes.ts) tells what it loads on demand. */
export interface OnDemandNeeds {
  /** Runs blocks: the parsers, the provider SDKs and the sandbox. */
  readonly runsBlocks?: boolean;
  /** May send e-mail (`email: 'send'`): nodemailer. */
  readonly access: ResourceAccess;
  /** Takes ID tokens in a deployment with single sign-on: jose, and ipaddr.js for the issuer's URL. */
  readonly takesIdTokens?: boolean;
  /** Reads schedules' fire times without managing schedules (managing them is `schedules: 'manage'`): croner. */
  readonly readsSchedules?: boolean;
  /** Makes outbound HTTP requests through the guard (implied by `runsBlocks`): ipaddr.js. */
  readonly makesOutboundRequests?: boolean;
  /** Module built as a second bundle (`streamRunFile`) beside the handler's, loaded by its streamed runs. */
  readonly streamRunEntry?: string;
}

/** The packages installed beside a function's bundle: exactly those it may load on demand. */
export function onDemandModulesOf(needs: OnDemandNeeds): string[] {
  return [
    ...(needs.runsBlocks
      ? [...onDemandModules.documentReaders, ...onDemandModules.modelProviders, ...onDemandModules.sandbox]
      : []),
    ...(needs.access.email === 'send' ? onDemandModules.email : []),
    ...(needs.takesIdTokens ? onDemandModules.singleSignOn : []),
    ...(needs.access.schedules === 'manage' || needs.readsSchedules ? onDemandModules.schedules : []),
    ...(needs.runsBlocks || needs.makesOutboundRequests || needs.takesIdTokens
      ? onDemandModules.outboundRequests
      : []),
  ];
}

export const bundle = {
  minify: true,
  /** Linked `index.js.map`; functions run with NODE_OPTIONS=--enable-source-maps for real stack traces. */
  sourcemap: true,
  /**
   * The maps name the sources without carrying their text: stack traces need only the mappings, and
   * with the SDK inside, the text made the maps three times larger (getHealth's 1.9 MB, 0.7 MB without).
   */
  sourcesContent: false,
  /** The Lambda runtime is nodejs22.x. */
  target: 'node22',
  /**
   * CommonJS: the bundle lands in a directory without a package.json, where Node treats `.js` as
   * CommonJS; it also keeps `require` of CommonJS-only dependencies working without shims.
   */
  format: 'cjs',
  /**
   * The SDK's ES modules (`module`) before its CommonJS build (`main`): esbuild shakes what a
   * function does not use out of them (getHealth 597 -> 399 KB) and evaluates less at init. Every
   * other package the bundles take declares `exports`, which esbuild reads before these fields.
   */
  mainFields: ['module', 'main'],
  /**
   * Only the packages loaded on demand. The AWS SDK is bundled, in the versions of
   * package-lock.json (those the tests and the local server run), rather than taken from the copy
   * the nodejs22.x runtime carries, whose version AWS changes on its own schedule and whose set of
   * packages it does not promise. Bundled code cannot be shadowed by the runtime's NODE_PATH, and a
   * function carries only the SDK code it uses. The clients most requests never call (S3, KMS,
   * Secrets Manager, Bedrock) are side files beside the bundle (`onDemandSdkModules`), required with
   * their first call (adapters/aws/sdk-on-demand.ts).
   */
  external: [...Object.values(onDemandModules).flat(), `${onDemandSdkImportPrefix}*`],
  /**
   * Packages replaced by a module of the project, paths relative to the project root (esbuild's
   * working directory, in the CDK app's local bundling as in scripts/bundle.ts). The SDK clients'
   * credential chain becomes its first link, the environment, which is where Lambda puts a
   * function's credentials (adapters/aws/lambda-credentials.ts).
   */
  alias: { '@aws-sdk/credential-provider-node': './adapters/aws/lambda-credentials.ts' },
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
  sourcesContent: bundle.sourcesContent,
  target: bundle.target,
  format: OutputFormat.CJS,
  /** Not CDK's default of leaving `@aws-sdk/*` to the runtime (`externalModules` replaces it too). */
  bundleAwsSDK: true,
  mainFields: [...bundle.mainFields],
  externalModules: [...bundle.external],
  esbuildArgs: {
    '--log-override': Object.entries(bundle.logOverride).map(([name, level]) => `${name}=${level}`),
    '--alias': Object.entries(bundle.alias).map(([name, path]) => `${name}=${path}`),
  },
};

/**
 * The esbuild command line that bundles `entry` (relative to `inputDir`) into `outfile` with the
 * shared options: NodejsFunction takes one entry, so a second bundle beside the handler's is built
 * by this command after NodejsFunction's own, with the esbuild the project pins.
 */
export function esbuildCommandLine(inputDir: string, entry: string, outfile: string): string {
  const args = [
    '--bundle',
    `${inputDir}/${entry}`,
    `--outfile=${outfile}`,
    '--platform=node',
    `--target=${bundle.target}`,
    `--format=${bundle.format}`,
    `--main-fields=${bundle.mainFields.join(',')}`,
    ...(bundle.minify ? ['--minify'] : []),
    ...(bundle.sourcemap ? ['--sourcemap'] : []),
    `--sources-content=${bundle.sourcesContent}`,
    ...bundle.external.map((name) => `--external:${name}`),
    ...Object.entries(bundle.logOverride).map(([name, level]) => `--log-override:${name}=${level}`),
    ...Object.entries(bundle.alias).map(([name, path]) => `--alias:${name}=${path}`),
    '--log-level=error',
  ];
  return ['npx', '--no-install', 'esbuild', ...args].map(shellQuoted).join(' ');
}

/** An argument for bash, in single quotes. */
const shellQuoted = (arg: string) => `'${arg.replaceAll("'", `'\\''`)}'`;

/**
 * The shell command that builds an on-demand SDK module's side file into `outputDir` when the
 * function's bundles (index.js, and stream-run.js where it has one) require it.
 */
function onDemandSdkCommandLine(inputDir: string, outputDir: string, name: OnDemandSdkModule): string {
  // esbuild writes the kept `import("./on-demand/<name>.js")` with double quotes.
  const required = shellQuoted(`"${onDemandSdkImportPrefix}${name}.js"`);
  const bundles = ['index.js', streamRunFile].map((file) => shellQuoted(`${outputDir}/${file}`)).join(' ');
  const build = esbuildCommandLine(inputDir, onDemandSdkEntry(name), `${outputDir}/${onDemandSdkFile(name)}`);
  return `if grep -qsF ${required} ${bundles}; then ${build}; fi`;
}

/**
 * NodejsFunction's `bundling` for a function: the shared options, what it loads on demand beside it,
 * its streamed runs' bundle and the side files of the SDK clients its bundles call on demand.
 */
export function bundlingOf(needs: OnDemandNeeds): BundlingOptions {
  const nodeModules = onDemandModulesOf(needs);
  const { streamRunEntry } = needs;
  return {
    ...nodejsFunctionBundling,
    ...(nodeModules.length ? { nodeModules } : {}),
    commandHooks: {
      beforeBundling: () => [],
      beforeInstall: () => [],
      // Hooks run chained with &&: the streamed runs' bundle first, as the side files' check reads it.
      afterBundling: (inputDir: string, outputDir: string) => [
        ...(streamRunEntry
          ? [esbuildCommandLine(inputDir, streamRunEntry, `${outputDir}/${streamRunFile}`)]
          : []),
        ...onDemandSdkModules.map((name) => onDemandSdkCommandLine(inputDir, outputDir, name)),
      ],
    },
  };
}

/** Options for esbuild's JS API (`build`), the same choices as NodejsFunction's command line. */
export const esbuildBuildOptions = {
  bundle: true,
  platform: 'node',
  minify: bundle.minify,
  sourcemap: bundle.sourcemap,
  sourcesContent: bundle.sourcesContent,
  target: bundle.target,
  format: bundle.format,
  mainFields: [...bundle.mainFields],
  external: [...bundle.external],
  logOverride: bundle.logOverride,
  alias: bundle.alias,
} satisfies BuildOptions;
