import { mkdtemp, readdir, rm, utimes, mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cachedBuild, startFormPages } from '../../../local/form-pages';

let cacheDir: string;
let server: Server | undefined;

beforeEach(async () => {
  cacheDir = await mkdtemp(join(tmpdir(), 'form-pages-cache-test-'));
});

afterEach(async () => {
  if (server) await new Promise((resolve) => server?.close(resolve));
  server = undefined;
  await rm(cacheDir, { recursive: true, force: true });
});

/** The names in the system temp dir that a form page build would leave there. */
async function formPageFoldersInTmp(): Promise<string[]> {
  return (await readdir(tmpdir())).filter(
    (name) => name.startsWith('form-pages-') && !cacheDir.endsWith(name),
  );
}

describe('startFormPages', () => {
  it('builds the page once into a cache keyed by its sources, shared by later starts, and nothing into the temp dir', async () => {
    // Prepare
    const before = await formPageFoldersInTmp();

    // Act
    const first = await cachedBuild(cacheDir);
    const second = await cachedBuild(cacheDir);
    const pages = await startFormPages(cacheDir);
    server = createServer(async (request, response) => {
      if (!(await pages.serve(request.method ?? 'GET', request.url ?? '/', response)))
        response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const page = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/form/some-form`);
    await pages.close();

    // Assess
    expect(second).toBe(first);
    expect(await readdir(cacheDir)).toEqual([first.split('/').pop()]);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<script type="module" src="/form/app-');
    expect(await formPageFoldersInTmp()).toEqual(before);
  });

  it('starts at once with the same build, and removes builds of other sources once they are an hour old', async () => {
    // Prepare: an old build of other sources and a young leftover of a build in progress
    const old = join(cacheDir, 'other-sources');
    const young = join(cacheDir, 'x.1.2.partial');
    await mkdir(old, { recursive: true });
    await mkdir(young, { recursive: true });
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
    await utimes(old, twoHoursAgo, twoHoursAgo);

    // Act
    const [one, other] = await Promise.all([cachedBuild(cacheDir), cachedBuild(cacheDir)]);

    // Assess
    expect(other).toBe(one);
    expect((await readdir(cacheDir)).sort()).toEqual([one.split('/').pop(), 'x.1.2.partial'].sort());
  });
});
