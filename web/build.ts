/**
 * Builds the form page: `src/main.ts` and `src/style.css` bundled and minified by esbuild into
 * content-hashed files, and an `index.html` that loads them, all in `<outDir>/form/`. The stack
 * deploys this build (lib/site-stack.ts) and the local server serves it (local/form-pages.ts).
 * `tsx web/build.ts` writes it to `dist/web`.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type BuildOptions, type BuildResult, build, buildSync, type Metafile } from 'esbuild';
import { formPagePrefix } from '../catalog/site';

/** The build's directory under `outDir`, and the path prefix the pages are served at. */
export const formAppDir = formPagePrefix;

/** The page's sources; what a build makes depends on them and on this module alone. */
export const formAppSourceDir = join(dirname(fileURLToPath(import.meta.url)), 'src');
const sourceDir = formAppSourceDir;

/** This module's own file, for caches keyed by what a build depends on. */
export const formAppBuildModule = fileURLToPath(import.meta.url);

function optionsOf(outDir: string): BuildOptions {
  const appDir = join(outDir, formAppDir);
  // A fresh directory: an earlier build's files would otherwise be deployed beside this one's.
  rmSync(appDir, { recursive: true, force: true });
  mkdirSync(appDir, { recursive: true });
  return {
    entryPoints: [
      { in: join(sourceDir, 'main.ts'), out: 'app' },
      { in: join(sourceDir, 'style.css'), out: 'style' },
    ],
    outdir: appDir,
    entryNames: '[name]-[hash]',
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2020',
    legalComments: 'none',
    metafile: true,
    logLevel: 'silent',
  };
}

function writeIndex(outDir: string, result: BuildResult): void {
  const outputs = Object.keys((result.metafile as Metafile).outputs).map((file) => basename(file));
  const script = outputs.find((file) => file.endsWith('.js'));
  const style = outputs.find((file) => file.endsWith('.css'));
  if (!script || !style)
    throw new Error(`The form page build made no script or style: ${outputs.join(', ')}`);
  writeFileSync(join(outDir, formAppDir, 'index.html'), indexHtml(script, style));
}

/** No inline script or style: the page's CSP allows only its own files. */
function indexHtml(script: string, style: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Form</title>
<link rel="stylesheet" href="/${formAppDir}/${style}">
<script type="module" src="/${formAppDir}/${script}"></script>
</head>
<body>
<main id="app" aria-busy="true"><p>Loading the form…</p></main>
<noscript><p>This form needs JavaScript: turn it on in your browser and reload the page.</p></noscript>
</body>
</html>
`;
}

export async function buildFormApp(outDir: string): Promise<void> {
  writeIndex(outDir, await build(optionsOf(outDir)));
}

/** For `cdk synth`, whose constructs are built synchronously. */
export function buildFormAppSync(outDir: string): void {
  writeIndex(outDir, buildSync(optionsOf(outDir)));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const outDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'web');
  buildFormAppSync(outDir);
  console.log(`Form page built in ${join('dist', 'web', formAppDir)}`);
}
