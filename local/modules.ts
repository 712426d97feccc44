/**
 * Where the route and worker modules of the catalog are loaded from: beside this module, as
 * TypeScript sources (tests, the benchmark, through tsx) or as the compiled JavaScript that
 * `npm start` runs (scripts/build-server.mjs keeps the sources' layout, `.ts` becoming `.js`).
 */
import { dirname, extname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = fileURLToPath(import.meta.url);

/** The project root, or the compiled copy's root when running compiled. */
export const moduleRoot = resolve(dirname(here), '..');

/** The URL to import a catalog entry (`functions/.../x.ts`) from, under `root`. */
export function moduleUrlOf(root: string, entry: string): string {
  return pathToFileURL(resolve(root, entry.replace(/\.ts$/, extname(here)))).href;
}
