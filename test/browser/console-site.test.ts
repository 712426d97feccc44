/** The console's build and how the local server serves it: files, headers, size. */
import { readdir, readFile, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole } from '../../console/build';
import { consoleContentSecurityPolicy, consoleContentSecurityPolicyWith } from '../../console/site';
import { startConsolePages } from '../../local/console-pages';

const maxScriptGzippedBytes = 100 * 1024;

let tempDir: string;
let server: Server | undefined;
let baseUrl: string;

beforeAll(async () => {
  tempDir = await mkdtemp(join(tmpdir(), 'console-site-test-'));
  const pages = await startConsolePages(join(tempDir, 'cache'));
  server = createServer(async (request, response) => {
    if (!(await pages.serve(request.method ?? 'GET', request.url ?? '/', response)))
      response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  if (server) await new Promise((resolve) => server?.close(resolve));
  await rm(tempDir, { recursive: true, force: true });
});

describe('buildConsole', () => {
  it('writes index.html and content-hashed script and style, under 100 KB of JavaScript gzipped', async () => {
    // Prepare
    const outDir = join(tempDir, 'out');

    // Act
    await buildConsole(outDir);

    // Assess
    const files = (await readdir(join(outDir, 'console'))).sort();
    expect(files).toEqual([
      expect.stringMatching(/^app-[A-Z0-9]{8}\.js$/),
      'index.html',
      expect.stringMatching(/^style-[A-Z0-9]{8}\.css$/),
    ]);
    const scripts = files.filter((file) => file.endsWith('.js'));
    let gzippedBytes = 0;
    for (const file of scripts)
      gzippedBytes += gzipSync(await readFile(join(outDir, 'console', file))).length;
    expect(gzippedBytes).toBeLessThan(maxScriptGzippedBytes);
    const index = await readFile(join(outDir, 'console', 'index.html'), 'utf8');
    // Every script is a file of its own: the CSP allows no inline script.
    expect(index.match(/<script[^>]*>/g)).toEqual([`<script type="module" src="/console/${scripts[0]}">`]);
    expect(index).not.toMatch(/<script[^>]*>[^<]/);
    expect(index).not.toContain('<style');
  });
});

describe('startConsolePages', () => {
  it('serves index.html at /console/ with the strict CSP, nosniff and no-cache', async () => {
    // Act
    const page = await fetch(`${baseUrl}/console/`);

    // Assess
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    );
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(await page.text()).toContain('<title>Console</title>');
  });

  it('serves the hashed files as immutable, and sends /console to /console/', async () => {
    // Prepare
    const index = await (await fetch(`${baseUrl}/console/`)).text();
    const script = index.match(/src="(\/console\/app-[A-Z0-9]{8}\.js)"/)?.[1];
    const style = index.match(/href="(\/console\/style-[A-Z0-9]{8}\.css)"/)?.[1];

    // Act
    const scriptAnswer = await fetch(`${baseUrl}${script}`);
    const styleAnswer = await fetch(`${baseUrl}${style}`);
    const bare = await fetch(`${baseUrl}/console`, { redirect: 'manual' });

    // Assess
    expect(scriptAnswer.status).toBe(200);
    expect(scriptAnswer.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(scriptAnswer.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(scriptAnswer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(styleAnswer.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(bare.status).toBe(308);
    expect(bare.headers.get('location')).toBe('/console/');
  });

  it('answers no other path: no config.json locally, no file outside the build', async () => {
    // Act
    const statuses = await Promise.all(
      ['/console/config.json', '/console/..%2Fpackage.json', '/console/a/b', '/consoles/'].map(
        async (path) => (await fetch(`${baseUrl}${path}`)).status,
      ),
    );

    // Assess
    expect(statuses).toEqual([404, 404, 404, 404]);
  });
});

describe('consoleContentSecurityPolicyWith', () => {
  it('adds origins the page may call (the Cognito domain) to connect-src only', () => {
    // Act
    const policy = consoleContentSecurityPolicyWith(['https://login.auth.eu-west-1.amazoncognito.com']);

    // Assess
    expect(policy).toBe(
      consoleContentSecurityPolicy.replace(
        "connect-src 'self'",
        "connect-src 'self' https://login.auth.eu-west-1.amazoncognito.com",
      ),
    );
  });
});
