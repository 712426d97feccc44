/**
 * Bundles every route and worker of the catalogue with esbuild, with the same options the CDK app
 * uses (lib/bundling.ts), into dist/functions/<id>/index.js, and prints their sizes. Bundles over
 * 1 MB are flagged: cold start grows with bundle size (design §5, "Bundles").
 *
 *   npm run build            bundle and print the table
 *   import { bundleAll }     the same from code (the benchmark does)
 */
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { routes, workers } from '../catalog/routes';
import { esbuildBuildOptions } from '../lib/bundling';
import { fromProjectRoot, projectRoot } from '../lib/project';

export const bundleOutputDir = fromProjectRoot('dist/functions');
export const bundleSizeLimitInBytes = 1024 * 1024;

export interface BundleSize {
  id: string;
  bytes: number;
}

/** Every function of the service: the routes, then the workers. */
export function functionEntries(): { id: string; entry: string }[] {
  return [
    ...routes.map((route) => ({ id: route.id, entry: route.entry })),
    ...Object.values(workers).map((worker) => ({ id: worker.id, entry: worker.entry })),
  ];
}

/** Bundles every function into dist/functions/<id>/index.js; resolves to their sizes in bytes. */
export async function bundleAll(): Promise<BundleSize[]> {
  await rm(bundleOutputDir, { recursive: true, force: true });
  await mkdir(bundleOutputDir, { recursive: true });
  // The bundles are CommonJS while this package is "type": "module"; this keeps them loadable here.
  await writeFile(join(bundleOutputDir, 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
  return Promise.all(
    functionEntries().map(async ({ id, entry }) => {
      const outfile = join(bundleOutputDir, id, 'index.js');
      await build({
        ...esbuildBuildOptions,
        absWorkingDir: projectRoot,
        entryPoints: [fromProjectRoot(entry)],
        outfile,
        logLevel: 'error',
      });
      return { id, bytes: (await stat(outfile)).size };
    }),
  );
}

export function formatSizeTable(sizes: BundleSize[]): string {
  const idWidth = Math.max('function'.length, ...sizes.map((size) => size.id.length));
  const header = `${'function'.padEnd(idWidth)}  ${'bytes'.padStart(10)}  ${'KB'.padStart(9)}`;
  const lines = sizes.map(({ id, bytes }) => {
    const flag = bytes > bundleSizeLimitInBytes ? '  over 1 MB' : '';
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

async function main(): Promise<void> {
  const started = Date.now();
  const sizes = await bundleAll();
  console.log(formatSizeTable(sizes));
  const over = sizes.filter((size) => size.bytes > bundleSizeLimitInBytes);
  console.log(
    `\n${sizes.length} bundles in dist/functions (${Date.now() - started} ms)` +
      (over.length > 0
        ? `; ${over.length} over 1 MB: ${over.map((size) => size.id).join(', ')}`
        : '; none over 1 MB'),
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
