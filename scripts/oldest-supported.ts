/**
 * The oldest runtime and compiler the client library (sdk/) supports, Node 16 and TypeScript 5.0,
 * for the tests that run and type-check the built package with them. Both come from the npm
 * registry (Node as the `node-<platform>-<arch>` package) into .cache/oldest-supported/, never into
 * the project's dependencies: a `node` package there would put Node 16 first on PATH for every npm
 * script.
 *
 *   npx tsx scripts/oldest-supported.ts    install them if absent and print their paths (CI runs this)
 *   import { oldestSupported }             the same from a test
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fromProjectRoot } from '../lib/project';

export const oldestVersions = { node: '16.20.2', typescript: '5.0.4' };
export const oldestSupportedDir = fromProjectRoot('.cache/oldest-supported');

/** The registry package with the Node binary for this machine. */
function nodePackageName(): string {
  const platform = process.platform === 'win32' ? 'win' : process.platform;
  return `node-${platform}-${process.arch}`;
}

function paths() {
  const modules = join(oldestSupportedDir, 'node_modules');
  return {
    node: join(modules, nodePackageName(), 'bin', process.platform === 'win32' ? 'node.exe' : 'node'),
    tsc: join(modules, 'typescript', 'bin', 'tsc'),
  };
}

/**
 * Paths of the Node 16 binary and of TypeScript 5.0's `tsc` (run it with any Node), installed
 * first when absent; throws saying how to install them when that fails.
 */
export function oldestSupported(): { node: string; tsc: string } {
  const found = paths();
  if (existsSync(found.node) && existsSync(found.tsc)) return found;
  const packages = [`${nodePackageName()}@${oldestVersions.node}`, `typescript@${oldestVersions.typescript}`];
  const args = [
    'install',
    '--no-save',
    '--no-package-lock',
    '--no-audit',
    '--no-fund',
    '--prefix',
    oldestSupportedDir,
  ];
  try {
    execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', [...args, ...packages], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
  } catch (error) {
    throw new Error(
      `Could not install ${packages.join(' and ')} into ${oldestSupportedDir}: ${(error as Error).message}. ` +
        `Install them with: npm ${args.join(' ')} ${packages.join(' ')}`,
    );
  }
  for (const path of Object.values(found)) {
    if (!existsSync(path)) throw new Error(`${packages.join(' and ')} installed, but ${path} is not there`);
  }
  return found;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(JSON.stringify(oldestSupported(), null, 2));
}
