/**
 * The form pages locally: the app is built once per service start (the same build the stack
 * deploys) into a directory of its own, and `/form/<identifier>` answers its index page, while
 * `/form/<asset>` answers that file, with the headers CloudFront gives them.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { formPageHeaders, formPagePrefix, isFormAssetName } from '../catalog/site';
import { buildFormApp } from '../web/build';

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

export interface FormPages {
  /** Answers a GET or HEAD of `/form/...`; false when the path is not the site's. */
  serve(method: string, pathname: string, response: ServerResponse): Promise<boolean>;
  close(): Promise<void>;
}

export async function startFormPages(): Promise<FormPages> {
  // Its own directory: several services (tests) may start at once, each with its own build.
  const outDir = await mkdtemp(join(tmpdir(), 'form-pages-'));
  await buildFormApp(outDir);
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
    close: () => rm(outDir, { recursive: true, force: true }),
  };
}
