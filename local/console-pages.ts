/**
 * The console locally: the page (the same build the stack deploys) built into a cache keyed by its
 * sources, `.cache/console/<hash>`, and served at `/console/` with the headers CloudFront gives it.
 * `/console` is sent to `/console/`, so that the page's relative links resolve under it. No
 * `config.json` is served: locally the console signs in with an API key only.
 */
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { extname, join } from 'node:path';
import { buildConsole, consoleBuildModule, consoleSourceDir } from '../console/build';
import {
  consoleAssetCacheControl,
  consoleIndexCacheControl,
  consolePageHeaders,
  consolePrefix,
  isConsoleAssetName,
} from '../console/site';
import { pageBuildModule } from '../web/page-build';
import { cachedBuild, contentTypes } from './form-pages';
import { moduleRoot } from './modules';

export const consolePagesCacheDir = join(moduleRoot, '.cache', 'console');

export interface ConsolePages {
  /** Answers a GET or HEAD of `/console/...`; false when the path is not the console's. */
  serve(method: string, pathname: string, response: ServerResponse): Promise<boolean>;
}

export async function startConsolePages(cacheDir: string = consolePagesCacheDir): Promise<ConsolePages> {
  const outDir = await cachedBuild(cacheDir, {
    prefix: consolePrefix,
    sourceDir: consoleSourceDir,
    buildModules: [consoleBuildModule, pageBuildModule],
    build: buildConsole,
  });
  const appDir = join(outDir, consolePrefix);
  return {
    async serve(method, pathname, response) {
      if (method !== 'GET' && method !== 'HEAD') return false;
      if (pathname === `/${consolePrefix}`) {
        response.writeHead(308, { location: `/${consolePrefix}/`, 'content-length': '0' });
        response.end();
        return true;
      }
      const segments = pathname.split('/');
      if (segments[1] !== consolePrefix || segments.length !== 3) return false;
      const segment = segments[2];
      const asset = isConsoleAssetName(segment);
      if (!asset && segment !== '' && segment !== 'index.html') return false;
      const file = join(appDir, asset ? segment : 'index.html');
      const body = await readFile(file).catch(() => undefined);
      if (!body) return false;
      response.writeHead(200, {
        ...consolePageHeaders,
        'content-type': contentTypes[extname(file)] ?? 'application/octet-stream',
        'content-length': String(body.length),
        'cache-control': asset ? consoleAssetCacheControl : consoleIndexCacheControl,
      });
      response.end(method === 'HEAD' ? undefined : body);
      return true;
    },
  };
}
