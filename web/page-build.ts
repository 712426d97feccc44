/**
 * How a static page of the service is built (the form page, the console): its `main.ts` and
 * `style.css` bundled and minified by esbuild into content-hashed files, and an `index.html` that
 * loads them with no inline script or style, all in `<outDir>/<prefix>/`.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildOptions, BuildResult, Metafile } from 'esbuild';

/** This module's own file: a build depends on it as on the page's own build module. */
export const pageBuildModule = fileURLToPath(import.meta.url);

export interface StaticPage {
  /** The build's directory under `outDir`, and the path prefix the page is served at. */
  prefix: string;
  sourceDir: string;
  /** The browsers the script is written for (esbuild's `target`). */
  target: string;
  title: string;
  /** The element the app renders into, with what it shows until the script runs. */
  root: { tag: 'main' | 'div'; loading: string };
  noscript: string;
}

export function pageBuildOptions(outDir: string, page: StaticPage): BuildOptions {
  const appDir = join(outDir, page.prefix);
  // A fresh directory: an earlier build's files would otherwise be deployed beside this one's.
  rmSync(appDir, { recursive: true, force: true });
  mkdirSync(appDir, { recursive: true });
  return {
    entryPoints: [
      { in: join(page.sourceDir, 'main.ts'), out: 'app' },
      { in: join(page.sourceDir, 'style.css'), out: 'style' },
    ],
    outdir: appDir,
    entryNames: '[name]-[hash]',
    bundle: true,
    minify: true,
    format: 'esm',
    target: page.target,
    legalComments: 'none',
    metafile: true,
    logLevel: 'silent',
  };
}

export function writePageIndex(outDir: string, page: StaticPage, result: BuildResult): void {
  const outputs = Object.keys((result.metafile as Metafile).outputs).map((file) => basename(file));
  const script = outputs.find((file) => file.endsWith('.js'));
  const style = outputs.find((file) => file.endsWith('.css'));
  if (!script || !style)
    throw new Error(`The ${page.prefix} page build made no script or style: ${outputs.join(', ')}`);
  writeFileSync(join(outDir, page.prefix, 'index.html'), indexHtml(page, script, style));
}

/** No inline script or style: the page's CSP allows only its own files. */
function indexHtml(page: StaticPage, script: string, style: string): string {
  const { tag, loading } = page.root;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${page.title}</title>
<link rel="stylesheet" href="/${page.prefix}/${style}">
<script type="module" src="/${page.prefix}/${script}"></script>
</head>
<body>
<${tag} id="app" aria-busy="true"><p>${loading}</p></${tag}>
<noscript><p>${page.noscript}</p></noscript>
</body>
</html>
`;
}
