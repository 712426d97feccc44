/**
 * Builds the console: `src/main.ts` (Preact, htm and uPlot bundled in) and `src/style.css`
 * minified by esbuild into content-hashed files, and an `index.html` that loads them, all in
 * `<outDir>/console/`. The stack deploys this build beside a `config.json` of its own (SSO), and
 * the local server serves it (local/console-pages.ts). `npm run build:console` writes `dist/console`.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type BuildOptions, type BuildResult, build, buildSync, type Metafile } from 'esbuild';
import { consolePrefix } from './site';

/** The page's sources; what a build makes depends on them and on this module alone. */
export const consoleSourceDir = join(dirname(fileURLToPath(import.meta.url)), 'src');

/** This module's own file, for caches keyed by what a build depends on. */
export const consoleBuildModule = fileURLToPath(import.meta.url);

function optionsOf(outDir: string): BuildOptions {
  const appDir = join(outDir, consolePrefix);
  // A fresh directory: an earlier build's files would otherwise be deployed beside this one's.
  rmSync(appDir, { recursive: true, force: true });
  mkdirSync(appDir, { recursive: true });
  return {
    entryPoints: [
      { in: join(consoleSourceDir, 'main.ts'), out: 'app' },
      { in: join(consoleSourceDir, 'style.css'), out: 'style' },
    ],
    outdir: appDir,
    entryNames: '[name]-[hash]',
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    legalComments: 'none',
    metafile: true,
    logLevel: 'silent',
  };
}

function writeIndex(outDir: string, result: BuildResult): void {
  const outputs = Object.keys((result.metafile as Metafile).outputs).map((file) => basename(file));
  const script = outputs.find((file) => file.endsWith('.js'));
  const style = outputs.find((file) => file.endsWith('.css'));
  if (!script || !style) throw new Error(`The console build made no script or style: ${outputs.join(', ')}`);
  writeFileSync(join(outDir, consolePrefix, 'index.html'), indexHtml(script, style));
}

/** No inline script or style: the page's CSP allows only its own files. */
function indexHtml(script: string, style: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Console</title>
<link rel="stylesheet" href="/${consolePrefix}/${style}">
<script type="module" src="/${consolePrefix}/${script}"></script>
</head>
<body>
<div id="app" aria-busy="true"><p>Loading the console…</p></div>
<noscript><p>The console needs JavaScript: turn it on in your browser and reload the page.</p></noscript>
</body>
</html>
`;
}

/** Writes `<outDir>/console/`: index.html and the hashed script and style. */
export async function buildConsole(outDir: string): Promise<void> {
  writeIndex(outDir, await build(optionsOf(outDir)));
}

/** For `cdk synth`, whose constructs are built synchronously. */
export function buildConsoleSync(outDir: string): void {
  writeIndex(outDir, buildSync(optionsOf(outDir)));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const outDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
  buildConsoleSync(outDir);
  console.log(`Console built in ${join('dist', consolePrefix)}`);
}
