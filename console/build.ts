/**
 * Builds the console: `src/main.ts` (Preact, htm and uPlot bundled in) and `src/style.css` into
 * content-hashed files and an `index.html` in `<outDir>/console/` (web/page-build.ts). The stack
 * deploys this build beside a `config.json` of its own (SSO), and the local server serves it
 * (local/console-pages.ts). `npm run build:console` writes `dist/console`.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, buildSync } from 'esbuild';
import { pageBuildOptions, type StaticPage, writePageIndex } from '../web/page-build';
import { consolePrefix } from './site';

/** The page's sources; what a build makes depends on them and on this module alone. */
export const consoleSourceDir = join(dirname(fileURLToPath(import.meta.url)), 'src');

/** This module's own file, for caches keyed by what a build depends on. */
export const consoleBuildModule = fileURLToPath(import.meta.url);

const consolePage: StaticPage = {
  prefix: consolePrefix,
  sourceDir: consoleSourceDir,
  // The page's script awaits at its top level; every browser an operator uses runs ES2022.
  target: 'es2022',
  title: 'Console',
  root: { tag: 'div', loading: 'Loading the console…' },
  noscript: 'The console needs JavaScript: turn it on in your browser and reload the page.',
};

/** Writes `<outDir>/console/`: index.html and the hashed script and style. */
export async function buildConsole(outDir: string): Promise<void> {
  writePageIndex(outDir, consolePage, await build(pageBuildOptions(outDir, consolePage)));
}

/** For `cdk synth`, whose constructs are built synchronously. */
export function buildConsoleSync(outDir: string): void {
  writePageIndex(outDir, consolePage, buildSync(pageBuildOptions(outDir, consolePage)));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const outDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
  buildConsoleSync(outDir);
  console.log(`Console built in ${join('dist', consolePrefix)}`);
}
