/**
 * The client library builds, packs and loads from a copy of its folder alone, with nothing of this
 * repository around it: its own devDependencies (from its own lockfile, off the npm registry) and
 * nothing else, as somebody who publishes it from `sdk/` would do it.
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromProjectRoot } from '../../lib/project';

const run = promisify(execFile);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

let copyDir: string;

beforeAll(async () => {
  // Outside the repository, so that no node_modules of the repository can be found from it.
  copyDir = await mkdtemp(join(tmpdir(), 'sdk-standalone-'));
  const sdkDir = fromProjectRoot('sdk');
  await cp(sdkDir, copyDir, {
    recursive: true,
    // What a checkout has: no installed or built folders.
    filter: (source) => !/^(node_modules|dist)(\/|$)/.test(relative(sdkDir, source)),
  });
});

afterAll(async () => {
  if (copyDir) await rm(copyDir, { recursive: true, force: true });
});

describe('the client library folder on its own', () => {
  it('installs its lockfile, builds, packs the built files and loads as CommonJS and as an ES module', async () => {
    // Act
    await run(npm, ['ci', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: copyDir, timeout: 240_000 });
    await run(npm, ['run', 'build'], { cwd: copyDir, timeout: 120_000 });
    const packed = await run(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: copyDir });
    const required = await run(
      process.execPath,
      ['-e', "console.log(typeof require('./dist/cjs/index.js').WorkflowClient)"],
      { cwd: copyDir },
    );
    const imported = await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "console.log(typeof (await import('./dist/esm/index.js')).WorkflowClient)",
      ],
      { cwd: copyDir },
    );

    // Assess
    const files = (JSON.parse(packed.stdout)[0].files as Array<{ path: string }>).map((file) => file.path);
    expect(files).toEqual(
      expect.arrayContaining([
        'README.md',
        'package.json',
        'dist/esm/index.js',
        'dist/esm/index.d.ts',
        'dist/cjs/index.js',
        'dist/cjs/index.d.ts',
      ]),
    );
    expect(files.filter((path) => path.startsWith('src/') || path.startsWith('node_modules/'))).toEqual([]);
    expect(required.stdout.trim()).toBe('function');
    expect(imported.stdout.trim()).toBe('function');
  }, 420_000);
});
