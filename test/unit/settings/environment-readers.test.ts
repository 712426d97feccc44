/**
 * The settings modules are the only readers of the environment: a read anywhere else (a new
 * `Number(process.env.X)` in the wiring) would skip the checks at start and the settings table.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../../local/service';

/** The modules that may read the environment, and why. */
const readers = new Set([
  // The functions' settings, and each family's module that reads them at its cold start.
  'functions/settings/index.ts',
  'functions/settings/routes.ts',
  'functions/settings/workers.ts',
  'functions/settings/tasks.ts',
  // The local server's settings.
  'local/settings.ts',
  // Where resources are, read when an adapter needs one: CDK gives each function only its own.
  'adapters/aws/require-env.ts',
  // The stand-in of the Lambda runtime in bundle mode, which reads what the runtime reads.
  'local/bundles/lambda-runtime.cjs',
]);

/** Folders of the tree outside the service: tools and tests set and read their own variables. */
const outside = new Set([
  'node_modules',
  'dist',
  'cdk.out',
  'coverage',
  'scripts',
  'test',
  // The benchmark is a harness, as the tests are: it sets the settings of the services it starts.
  'bench',
  // What the tests and the benchmark share (support/README.md), a harness too.
  'support',
  // The client library is a package of its own, run by the service's users.
  'sdk',
]);

const sourceFile = /\.(ts|mts|cts|js|mjs|cjs)$/;
const environmentRead = /process\s*(\.\s*env\b|\[\s*['"`]env['"`]\s*\])|\benv\s*\}\s*=\s*process\b/;

function sourcesOf(root: string): string[] {
  return readdirSync(root, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith('.') || outside.has(entry.name)) return [];
    if (entry.isDirectory()) {
      return readdirSync(join(root, entry.name), { recursive: true, encoding: 'utf8' })
        .filter((path) => sourceFile.test(path) && !path.split('/').includes('node_modules'))
        .map((path) => `${entry.name}/${path}`);
    }
    return sourceFile.test(entry.name) ? [entry.name] : [];
  });
}

describe('the environment', () => {
  it('is read by the settings modules only', () => {
    // Prepare
    const files = sourcesOf(repoRoot);

    // Act
    const elsewhere = files.filter(
      (path) => !readers.has(path) && environmentRead.test(readFileSync(join(repoRoot, path), 'utf8')),
    );

    // Assess
    expect(files.length).toBeGreaterThan(100);
    expect(elsewhere).toEqual([]);
  });

  it('is recognised however the read is written', () => {
    // Act
    const found = [
      'process.env.PORT',
      "process.env['PORT']",
      'process [ "env" ]',
      'const { env } = process',
    ].map((code) => environmentRead.test(code));

    // Assess
    expect(found).toEqual([true, true, true, true]);
  });
});
