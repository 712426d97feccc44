/**
 * Node 16, the oldest runtime the client library (sdk/) supports, for the test that runs the built
 * package on it. It comes from the npm registry (the `node-<platform>-<arch>` package) into
 * .cache/node16/, never into the project's dependencies: a `node` package there would put Node 16
 * first on PATH for every npm script.
 *
 *   npx tsx scripts/node16.ts      install it if absent and print the binary's path (CI runs this)
 *   import { node16Binary }        the same from a test
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { fromProjectRoot } from '../lib/project';

export const node16Version = '16.20.2';
export const node16Dir = fromProjectRoot('.cache/node16');

/** The registry package with the binary for this machine. */
export function node16Package(): string {
  const platform = process.platform === 'win32' ? 'win' : process.platform;
  return `node-${platform}-${process.arch}@${node16Version}`;
}

function binaryPath(): string {
  const name = node16Package().split('@')[0];
  return process.platform === 'win32'
    ? `${node16Dir}/node_modules/${name}/bin/node.exe`
    : `${node16Dir}/node_modules/${name}/bin/node`;
}

/** The path of the Node 16 binary, installed first when absent; throws naming what to do when it cannot be. */
export function node16Binary(): string {
  const binary = binaryPath();
  if (existsSync(binary)) return binary;
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const args = [
    'install',
    '--no-save',
    '--no-package-lock',
    '--no-audit',
    '--no-fund',
    '--prefix',
    node16Dir,
  ];
  try {
    execFileSync(npm, [...args, node16Package()], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    throw new Error(
      `Could not install Node ${node16Version} (${node16Package()}) into ${node16Dir}: ` +
        `${(error as Error).message}. Install it with: npm ${args.join(' ')} ${node16Package()}`,
    );
  }
  if (!existsSync(binary)) throw new Error(`${node16Package()} installed, but ${binary} is not there`);
  return binary;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(node16Binary());
}
