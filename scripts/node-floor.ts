/**
 * The Node the service supports at the least, 22 (what Lambda runs, nodejs22.x, and what the AWS
 * SDK, aws-local-stepfunctions, cookie and nanoid ask for), from the npm registry (the
 * `node-<platform>-<arch>` package) into .cache/node-floor/, for CI machines that have an older
 * Node: `.ci/run` puts its folder first on PATH, so that the tests run on it.
 *
 *   npx tsx scripts/node-floor.ts    install it if absent and print the folder of its `node`
 */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fromProjectRoot } from '../lib/project';
import { installUnder, nodeBinaryUnder, nodePackageName } from './registry-install';

/** The Node 22 release CI runs on; Lambda's nodejs22.x follows the 22 line too. */
export const nodeFloorVersion = '22.23.5';
export const nodeFloorDir = fromProjectRoot('.cache/node-floor');

/** The path of the Node 22 binary, installed first when absent. */
export function nodeFloor(): string {
  const node = nodeBinaryUnder(nodeFloorDir);
  installUnder(nodeFloorDir, [`${nodePackageName()}@${nodeFloorVersion}`], [node]);
  return node;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(dirname(nodeFloor()));
}
