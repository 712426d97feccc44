/**
 * The form pages locally: the app (the same build the stack deploys) is built into a cache keyed by
 * its sources, `.cache/form-pages/<hash>` under the project (or the compiled server's) root, and
 * `/form/<identifier>` answers its index page, while `/form/<asset>` answers that file, with the
 * headers CloudFront gives them. A start whose sources have not changed builds nothing, and a
 * service that is killed leaves nothing behind in the system's temp dir.
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { extname, join, relative } from 'node:path';
import { formPageHeaders, formPagePrefix, isFormAssetName } from '../catalog/site';
import { buildFormApp, formAppBuildModule, formAppSourceDir } from '../web/build';
import { pageBuildModule } from '../web/page-build';
import { moduleRoot } from './modules';

export const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/** Where builds are kept: git ignores `.cache/` (and the compiled server lives under `dist/`). */
export const formPagesCacheDir = join(moduleRoot, '.cache', 'form-pages');

/** A static app the local server builds from its sources (the form page, the console). */
export interface StaticApp {
  /** The build's directory under the output dir, and the path prefix the app is served at. */
  prefix: string;
  sourceDir: string;
  /** The modules that build it: a change to one makes another build. */
  buildModules: string[];
  build(outDir: string): Promise<void>;
}

const formApp: StaticApp = {
  prefix: formPagePrefix,
  sourceDir: formAppSourceDir,
  buildModules: [formAppBuildModule, pageBuildModule],
  build: buildFormApp,
};

/** A build of other sources, or one a killed start left half made, is removed once this old. */
const staleAfterInMs = 60 * 60 * 1000;

export interface FormPages {
  /** Answers a GET or HEAD of `/form/...`; false when the path is not the site's. */
  serve(method: string, pathname: string, response: ServerResponse): Promise<boolean>;
  close(): Promise<void>;
}

export async function startFormPages(cacheDir: string = formPagesCacheDir): Promise<FormPages> {
  const outDir = await cachedBuild(cacheDir);
  const appDir = join(outDir, formPagePrefix);
  return {
    async serve(method, pathname, response) {
      const segments = pathname.split('/');
      if (segments[1] !== formPagePrefix || segments.length !== 3 || segments[2] === '') return false;
      if (method !== 'GET' && method !== 'HEAD') return false;
      const segment = segments[2];
      const asset = isFormAssetName(segment);
      // No `..` or encoded separators reach the file system: an asset name is one plain segment.
      if (asset && !/^[\w.-]+$/.test(segment)) return false;
      const file = join(appDir, asset ? segment : 'index.html');
      const body = await readFile(file).catch(() => undefined);
      if (!body) return false;
      response.writeHead(200, {
        ...formPageHeaders,
        'content-type': contentTypes[extname(file)] ?? 'application/octet-stream',
        'content-length': String(body.length),
        'cache-control': asset ? 'public, max-age=31536000, immutable' : 'no-cache',
      });
      response.end(method === 'HEAD' ? undefined : body);
      return true;
    },
    // The build is shared with every other start of the same sources: nothing to remove.
    close: async () => undefined,
  };
}

/**
 * The build of the current sources: reused when there is one, else made in a directory of its own
 * and renamed into place, so that services starting at once (tests) never see a half-made build.
 */
export async function cachedBuild(cacheDir: string, app: StaticApp = formApp): Promise<string> {
  const key = await sourcesKey(app);
  const outDir = join(cacheDir, key);
  if (await isComplete(outDir, app)) return outDir;
  await mkdir(cacheDir, { recursive: true });
  const building = join(cacheDir, `${key}.${process.pid}.${Date.now()}.partial`);
  try {
    await app.build(building);
    await rename(building, outDir).catch(async (error: NodeJS.ErrnoException) => {
      // Another start renamed its build first: the same sources, so the same pages.
      if (!(await isComplete(outDir, app))) throw error;
    });
  } finally {
    await rm(building, { recursive: true, force: true });
  }
  await removeStale(cacheDir, key);
  return outDir;
}

async function isComplete(outDir: string, app: StaticApp): Promise<boolean> {
  return (await stat(join(outDir, app.prefix, 'index.html')).catch(() => undefined)) !== undefined;
}

/** A hash of the app's sources and of the module that builds them. */
async function sourcesKey(app: StaticApp): Promise<string> {
  const hash = createHash('sha256');
  const files = (await readdir(app.sourceDir, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
  for (const file of [...files, ...app.buildModules]) {
    hash
      .update(relative(app.sourceDir, file))
      .update('\0')
      .update(await readFile(file))
      .update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

/** Builds of other sources and leftovers of killed builds, once they are an hour old. */
async function removeStale(cacheDir: string, key: string): Promise<void> {
  const now = Date.now();
  for (const name of await readdir(cacheDir).catch(() => [] as string[])) {
    if (name === key) continue;
    const path = join(cacheDir, name);
    const modified = (await stat(path).catch(() => undefined))?.mtimeMs ?? now;
    if (now - modified > staleAfterInMs) await rm(path, { recursive: true, force: true });
  }
}
