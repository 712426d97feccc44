/**
 * The Lambda artifacts the bundle mode serves: made (or found up to date) by
 * scripts/function-artifacts.ts, run as a child process with the project's TypeScript loader, since
 * it needs the CDK app, which the compiled server does not carry.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, symlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ArtifactManifest } from '../../scripts/function-artifacts';
import { moduleRoot } from '../modules';

export class ArtifactBuildError extends Error {
  readonly status = 500;
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ArtifactBuildError';
  }
}

const artifactScript = join('scripts', 'function-artifacts.ts');

/** The project's root: the sources' root, or the one the compiled server (dist/server) was built from. */
export function projectRootOf(start = moduleRoot): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, artifactScript))) return dir;
    if (dirname(dir) === dir) throw new ArtifactBuildError(`No ${artifactScript} above ${start}`);
  }
}

export interface Artifacts {
  manifest: ArtifactManifest;
  /** dist/functions: one asset folder per function. */
  dir: string;
  /** The project's node_modules (the runtime's SDK resolves from it). */
  nodeModulesDir: string;
  /** NODE_PATH of every function: the runtime's SDK, and nothing else (see `runtimeSdkPath`). */
  nodePath: string;
}

/**
 * The runtime's SDK: the nodejs22.x runtime has the AWS SDK for JavaScript v3 on NODE_PATH, and the
 * bundles leave `@aws-sdk/*` out (lib/bundling.ts). Locally a folder whose node_modules holds only
 * `@aws-sdk`, a link to the project's copy, is every function's NODE_PATH. Remove this (and the
 * exception in lambda-runtime.cjs) when the SDK ships inside the artifacts.
 */
async function runtimeSdkPath(root: string): Promise<string> {
  const nodePath = join(root, 'dist', 'lambda-runtime', 'node_modules');
  const link = join(nodePath, '@aws-sdk');
  if (!existsSync(link)) {
    await mkdir(nodePath, { recursive: true });
    await symlink(join(root, 'node_modules', '@aws-sdk'), link, 'dir');
  }
  return nodePath;
}

/** Bundles, synthesizes and installs when the sources changed; resolves to the manifest. */
export async function prepareArtifacts(log: (line: string) => void = console.log): Promise<Artifacts> {
  const root = projectRootOf();
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', artifactScript], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (text: string) => {
      for (const line of text.split('\n')) if (line) log(line);
    });
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0) throw new ArtifactBuildError(`${artifactScript} failed (exit code ${code})`);
  const dir = join(root, 'dist', 'functions');
  const manifest = JSON.parse(await readFile(join(dir, 'artifacts.json'), 'utf8')) as ArtifactManifest;
  return { manifest, dir, nodeModulesDir: join(root, 'node_modules'), nodePath: await runtimeSdkPath(root) };
}
