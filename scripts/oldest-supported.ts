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
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fromProjectRoot } from '../lib/project';
import { installUnder, nodeBinaryUnder, nodePackageName } from './registry-install';

export const oldestVersions = { node: '16.20.2', typescript: '5.0.4' };
export const oldestSupportedDir = fromProjectRoot('.cache/oldest-supported');

/**
 * Paths of the Node 16 binary and of TypeScript 5.0's `tsc` (run it with any Node), installed
 * first when absent; throws saying how to install them when that fails.
 */
export function oldestSupported(): { node: string; tsc: string } {
  const found = {
    node: nodeBinaryUnder(oldestSupportedDir),
    tsc: join(oldestSupportedDir, 'node_modules', 'typescript', 'bin', 'tsc'),
  };
  installUnder(
    oldestSupportedDir,
    [`${nodePackageName()}@${oldestVersions.node}`, `typescript@${oldestVersions.typescript}`],
    Object.values(found),
  );
  return found;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(JSON.stringify(oldestSupported(), null, 2));
}
