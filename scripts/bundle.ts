/**
 * Bundles every route and worker of the catalog with esbuild, with the same options the CDK app
 * uses (lib/bundling.ts), into dist/functions/<id>/index.js (and beside it, as deployed: a route's
 * streamed runs, stream-run.js, and the SDK clients its bundles load on demand, on-demand/*.js),
 * and prints the sizes of the index.js files. The sizes include
 * the AWS SDK each function carries. Bundles over their limit are flagged (an API route 768 KB, any
 * other function 1 MB): cold start grows with bundle size (design §5, "Bundles");
 * test/infra/bundles.test.ts holds the bundles to them.
 *
 *   npm run build                     bundle and print the table
 *   npm run build -- --contents <id>  what fills one function's bundle, by package and folder
 *   import { bundleAll }     the same from code (the benchmark does)
 */
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { type RouteDefinition, streamRunFile } from '../catalog/route-definition';
import { routes, workers } from '../catalog/routes';
import {
  esbuildBuildOptions,
  type OnDemandSdkModule,
  onDemandSdkEntry,
  onDemandSdkFile,
  onDemandSdkModulesNamed,
} from '../lib/bundling';
import { fromProjectRoot, projectRoot } from '../lib/project';

export const bundleOutputDir = fromProjectRoot('dist/functions');
/**
 * An API route's bundle: what its handler needs of the route table, zod, auth and the AWS wiring,
 * with the AWS SDK code it uses (the SDK's core and DynamoDB alone are about 330 KB; the clients
 * called on demand are carried too, and evaluated with their first call). bench/BUNDLES.md.
 */
export const routeBundleLimitInBytes = 768 * 1024;
/** executionStep's bundle, with the AWS SDK and without what it loads on demand (provider SDKs, parsers, the sandbox). */
export const executionStepBundleLimitInBytes = 1024 * 1024;
/** Any other function's bundle, with the AWS SDK. */
export const bundleSizeLimitInBytes = 1024 * 1024;
/** An API route's init in a fresh Node process (bench/bundle-init.ts). */
export const routeInitLimitInMs = 150;

const routeIds = new Set<string>(routes.map((route) => route.id));

export function isRoute(id: string): boolean {
  return routeIds.has(id);
}

/** The size a function's bundle must stay within. */
export function bundleLimitInBytesOf(id: string): number {
  if (isRoute(id)) return routeBundleLimitInBytes;
  return id === 'executionStep' ? executionStepBundleLimitInBytes : bundleSizeLimitInBytes;
}

/** A limit as people say it: `768 KB`, `1 MB`. */
export function limitText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MB` : `${bytes / 1024} KB`;
}

export interface BundleSize {
  id: string;
  bytes: number;
}

export interface FunctionEntry {
  id: string;
  entry: string;
  /** Bundled as `streamRunFile` beside the handler's bundle (lib/bundling.ts). */
  streamRunEntry?: string;
}

/** Every function of the service: the routes, then the workers. */
export function functionEntries(): FunctionEntry[] {
  return [
    ...(routes as readonly RouteDefinition[]).map((route) => ({
      id: route.id,
      entry: route.entry,
      streamRunEntry: route.streamRunEntry,
    })),
    ...Object.values(workers).map((worker) => ({ id: worker.id, entry: worker.entry })),
  ];
}

/** Bundles one entry (relative to the project root) into `outfile`, as deployed; resolves to its external imports. */
export async function bundleTo(entry: string, outfile: string): Promise<string[]> {
  const result = await build({
    ...esbuildBuildOptions,
    absWorkingDir: projectRoot,
    entryPoints: [fromProjectRoot(entry)],
    outfile,
    metafile: true,
    logLevel: 'error',
  });
  return Object.values(result.metafile.outputs).flatMap(externalImportsOf);
}

const externalImportsOf = (output: Metafile['outputs'][string]) =>
  output.imports.filter((imported) => imported.external).map((imported) => imported.path);

/**
 * Bundles a function into `dir` as deployed: index.js, its streamed runs' bundle and the side files
 * of the SDK clients they load on demand. Resolves to the handler's bundle.
 */
export async function bundleFunctionTo(fn: FunctionEntry, dir: string): Promise<string> {
  const outfile = join(dir, 'index.js');
  const imports = await Promise.all([
    bundleTo(fn.entry, outfile),
    ...(fn.streamRunEntry ? [bundleTo(fn.streamRunEntry, join(dir, streamRunFile))] : []),
  ]);
  await Promise.all(
    onDemandSdkModulesNamed(imports.flat()).map((name) =>
      bundleTo(onDemandSdkEntry(name), join(dir, onDemandSdkFile(name))),
    ),
  );
  return outfile;
}

/**
 * esbuild's `entryPoints` that bundle each function into `<id>/index.js` under the `outdir`, and its
 * streamed runs, where it has them, into `<id>/stream-run.js`, as deployed.
 */
export function entryPointsOf(functions: FunctionEntry[]): Record<string, string> {
  return Object.fromEntries(
    functions.flatMap((fn) => [
      [`${fn.id}/index`, fromProjectRoot(fn.entry)],
      ...(fn.streamRunEntry
        ? [[`${fn.id}/${streamRunFile.replace(/\.js$/, '')}`, fromProjectRoot(fn.streamRunEntry)]]
        : []),
    ]),
  );
}

/**
 * The side files each function's bundles (a build of `entryPointsOf` under `outdir`) require, as
 * esbuild's `entryPoints`: `<id>/on-demand/<name>` for each on-demand SDK module they name.
 */
export function onDemandEntryPointsOf(metafile: Metafile, outdir: string): Record<string, string> {
  const namedBy = new Map<string, OnDemandSdkModule[]>();
  for (const [path, output] of Object.entries(metafile.outputs)) {
    const id = new RegExp(`^${outdir}/([^/]+)/[^/]+\\.js$`).exec(path)?.[1];
    if (id)
      namedBy.set(id, [...(namedBy.get(id) ?? []), ...onDemandSdkModulesNamed(externalImportsOf(output))]);
  }
  return Object.fromEntries(
    [...namedBy].flatMap(([id, names]) =>
      [...new Set(names)].map((name) => [
        `${id}/${onDemandSdkFile(name).replace(/\.js$/, '')}`,
        fromProjectRoot(onDemandSdkEntry(name)),
      ]),
    ),
  );
}

/**
 * Bundles every function into dist/functions/<id>/ as `bundleFunctionTo` does; resolves to the sizes
 * of their index.js in bytes (what a cold start loads). One esbuild build with every entry, so each
 * module (the AWS SDK's above all) is read and parsed once for all the bundles instead of once per
 * bundle; each entry is still bundled on its own, with the deployed options. A second build makes
 * the side files the first one's bundles require.
 */
export async function bundleAll(): Promise<BundleSize[]> {
  await rm(bundleOutputDir, { recursive: true, force: true });
  await mkdir(bundleOutputDir, { recursive: true });
  // The bundles are CommonJS while this package is "type": "module"; this keeps them loadable here.
  await writeFile(join(bundleOutputDir, 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
  const functions = functionEntries();
  const options = {
    ...esbuildBuildOptions,
    absWorkingDir: projectRoot,
    outdir: bundleOutputDir,
    logLevel: 'error',
  } as const;
  const { metafile } = await build({ ...options, entryPoints: entryPointsOf(functions), metafile: true });
  await build({
    ...options,
    entryPoints: onDemandEntryPointsOf(metafile, relative(projectRoot, bundleOutputDir)),
  });
  return Promise.all(
    functions.map(async (fn) => ({
      id: fn.id,
      bytes: (await stat(join(bundleOutputDir, fn.id, 'index.js'))).size,
    })),
  );
}

export function formatSizeTable(sizes: BundleSize[]): string {
  const idWidth = Math.max('function'.length, ...sizes.map((size) => size.id.length));
  const header = `${'function'.padEnd(idWidth)}  ${'bytes'.padStart(10)}  ${'KB'.padStart(9)}`;
  const lines = sizes.map(({ id, bytes }) => {
    const limit = bundleLimitInBytesOf(id);
    const flag = bytes > limit ? `  over ${limitText(limit)}` : '';
    return `${id.padEnd(idWidth)}  ${String(bytes).padStart(10)}  ${(bytes / 1024).toFixed(1).padStart(9)}${flag}`;
  });
  const total = sizes.reduce((sum, size) => sum + size.bytes, 0);
  return [
    header,
    '-'.repeat(header.length),
    ...lines,
    '-'.repeat(header.length),
    `${'total'.padEnd(idWidth)}  ${String(total).padStart(10)}  ${(total / 1024).toFixed(1).padStart(9)}`,
  ].join('\n');
}

/**
 * What fills a function's bundle, from esbuild's metafile: the bytes each package (node_modules)
 * or project folder adds to the minified output, largest first.
 */
export async function bundleContents(id: string): Promise<{ part: string; bytes: number }[]> {
  const found = functionEntries().find((candidate) => candidate.id === id);
  if (!found) throw new Error(`No function ${id} in the catalog`);
  const result = await build({
    ...esbuildBuildOptions,
    absWorkingDir: projectRoot,
    entryPoints: [fromProjectRoot(found.entry)],
    outfile: join(bundleOutputDir, id, 'index.js'),
    write: false,
    metafile: true,
    logLevel: 'error',
  });
  const output = Object.values(result.metafile.outputs).find((candidate) => candidate.entryPoint);
  const byPart = new Map<string, number>();
  for (const [path, input] of Object.entries(output?.inputs ?? {})) {
    const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
    const part = inPackage ? inPackage[1] : path.split('/').slice(0, -1).join('/') || path;
    byPart.set(part, (byPart.get(part) ?? 0) + input.bytesInOutput);
  }
  return [...byPart].map(([part, bytes]) => ({ part, bytes })).sort((a, b) => b.bytes - a.bytes);
}

async function main(): Promise<void> {
  const contentsOf = process.argv.indexOf('--contents');
  if (contentsOf !== -1) {
    const id = process.argv[contentsOf + 1] ?? '';
    for (const { part, bytes } of await bundleContents(id)) {
      if (bytes > 0) console.log(`${(bytes / 1024).toFixed(1).padStart(8)} KB  ${part}`);
    }
    return;
  }
  const started = Date.now();
  const sizes = await bundleAll();
  console.log(formatSizeTable(sizes));
  const over = sizes.filter((size) => size.bytes > bundleLimitInBytesOf(size.id));
  const limitsText = `routes ${limitText(routeBundleLimitInBytes)}, others ${limitText(bundleSizeLimitInBytes)}`;
  console.log(
    `\n${sizes.length} bundles in dist/functions (${Date.now() - started} ms)` +
      (over.length > 0
        ? `; ${over.length} over their limit (${limitsText}): ${over.map((size) => size.id).join(', ')}`
        : `; none over its limit (${limitsText})`),
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
