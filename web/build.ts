/**
 * Builds the form page: `src/main.ts` and `src/style.css` bundled and minified by esbuild into
 * content-hashed files, and an `index.html` that loads them, all in `<outDir>/form/`
 * (web/page-build.ts). The stack deploys this build (lib/site-stack.ts) and the local server serves
 * it (local/form-pages.ts). `tsx web/build.ts` writes it to `dist/web`.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, buildSync } from 'esbuild';
import { formPagePrefix } from '../catalog/site';
import { pageBuildOptions, type StaticPage, writePageIndex } from './page-build';

/** The build's directory under `outDir`, and the path prefix the pages are served at. */
export const formAppDir = formPagePrefix;

/** The page's sources; what a build makes depends on them and on this module alone. */
export const formAppSourceDir = join(dirname(fileURLToPath(import.meta.url)), 'src');

/** This module's own file, for caches keyed by what a build depends on. */
export const formAppBuildModule = fileURLToPath(import.meta.url);

const formPage: StaticPage = {
  prefix: formAppDir,
  sourceDir: formAppSourceDir,
  target: 'es2020',
  title: 'Form',
  root: { tag: 'main', loading: 'Loading the form…' },
  noscript: 'This form needs JavaScript: turn it on in your browser and reload the page.',
};

export async function buildFormApp(outDir: string): Promise<void> {
  writePageIndex(outDir, formPage, await build(pageBuildOptions(outDir, formPage)));
}

/** For `cdk synth`, whose constructs are built synchronously. */
export function buildFormAppSync(outDir: string): void {
  writePageIndex(outDir, formPage, buildSync(pageBuildOptions(outDir, formPage)));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const outDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'web');
  buildFormAppSync(outDir);
  console.log(`Form page built in ${join('dist', 'web', formAppDir)}`);
}
