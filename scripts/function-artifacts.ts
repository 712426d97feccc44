/**
 * Completes every Lambda artifact under dist/functions/<id>/ as CDK's NodejsFunction deploys it:
 * the bundles of `npm run build` (index.js, its side files), and beside them a `node_modules/` with
 * exactly the packages the function's bundling installs (lib/bundling.ts, read from each synthesized
 * ServiceFunction), with their whole dependency closure at the versions of package-lock.json, hard
 * linked from the project's installed node_modules (no network, no copies). It also writes
 * dist/functions/artifacts.json: each function's environment, memory and time-out as the synthesized
 * CloudFormation template gives them, which the bundle mode of the local server reads
 * (local/bundles/). Everything is made again only when a source of the bundles or of the CDK app
 * changed since the last time.
 *
 *   npx tsx scripts/function-artifacts.ts    bundle (if needed), synthesize, complete the artifacts
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import {
  copyFile,
  link,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readlink,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fromProjectRoot, projectRoot } from '../lib/project';

/** What the bundle mode knows of one function, from the synthesized template. */
export interface FunctionArtifact {
  /** The CloudFormation stack and logical id of its AWS::Lambda::Function. */
  stack: string;
  logicalId: string;
  /** `Environment.Variables` as synthesized: literals, or CloudFormation intrinsics (objects). */
  environment: Record<string, unknown>;
  memoryInMb: number;
  timeoutInSeconds: number;
  /** The packages installed beside the bundle (their closure is in node_modules/). */
  nodeModules: string[];
}

export interface ArtifactManifest {
  fingerprint: string;
  functions: Record<string, FunctionArtifact>;
}

export const artifactsDir = fromProjectRoot('dist/functions');
export const manifestFile = join(artifactsDir, 'artifacts.json');

/** What the bundles and the template are made from: a change to any of these makes them again. */
const inputDirs = ['adapters', 'bin', 'catalog', 'core', 'functions', 'lib'];
const inputFiles = ['package-lock.json', 'cdk.json', 'scripts/bundle.ts', 'scripts/function-artifacts.ts'];

export function sourceFingerprint(): string {
  const hash = createHash('sha256');
  const files = inputDirs.flatMap((dir) =>
    readdirSync(fromProjectRoot(dir), { recursive: true }).map((name) => join(dir, String(name))),
  );
  for (const file of [...files.sort(), ...inputFiles]) {
    const stats = statSync(fromProjectRoot(file));
    if (stats.isFile()) hash.update(`${file}\0${stats.size}\0${stats.mtimeMs}\n`);
  }
  return hash.digest('hex');
}

interface LockEntry {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  link?: boolean;
}

/**
 * The lockfile paths (`node_modules/a`, `node_modules/a/node_modules/b`) of `names` and of all they
 * depend on, found as Node finds them: the nearest `node_modules` up from the package that needs one.
 */
export function dependencyClosure(
  names: readonly string[],
  packages: Record<string, LockEntry>,
  isInstalled: (lockPath: string) => boolean = (lockPath) => existsSync(fromProjectRoot(lockPath)),
): string[] {
  const found = new Set<string>();
  const locate = (from: string, name: string): string | undefined => {
    let base = from;
    for (;;) {
      const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
      if (packages[candidate]) return candidate;
      if (!base) return undefined;
      const cut = base.lastIndexOf('/node_modules/');
      base = cut === -1 ? '' : base.slice(0, cut);
    }
  };
  const visit = (path: string) => {
    if (found.has(path)) return;
    found.add(path);
    const entry = packages[path];
    const needed = { ...entry.peerDependencies, ...entry.optionalDependencies, ...entry.dependencies };
    for (const name of Object.keys(needed)) {
      const at = locate(path, name);
      // An optional or peer dependency the project does not install is not installed beside it either.
      if (at && isInstalled(at)) visit(at);
    }
  };
  for (const name of names) {
    const at = locate('', name);
    if (!at) throw new Error(`${name} is to be installed beside a bundle but is not in package-lock.json`);
    visit(at);
  }
  return [...found].sort();
}

/**
 * Hard links the files of a folder into another (copies them across file systems). `skipNodeModules`:
 * not its own nested node_modules (a package's, which are packages of their own).
 */
export async function linkTree(from: string, to: string, skipNodeModules = false): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const entry of await readdir(from, { withFileTypes: true })) {
    if (skipNodeModules && entry.name === 'node_modules') continue;
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) await linkTree(source, target);
    else if (entry.isSymbolicLink()) await symlink(await readlink(source), target);
    else await link(source, target).catch(() => copyFile(source, target));
  }
}

/** Installs `names` and their closure into `<dir>/node_modules`, as `npm ci` would from the lockfile. */
export async function installBeside(dir: string, names: readonly string[]): Promise<number> {
  const lock = JSON.parse(readFileSync(fromProjectRoot('package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  await rm(join(dir, 'node_modules'), { recursive: true, force: true });
  if (names.length === 0) return 0;
  const paths = dependencyClosure(names, lock.packages);
  for (const path of paths) {
    const source = (await lstat(fromProjectRoot(path))).isSymbolicLink()
      ? resolve(projectRoot, path, '..', await readlink(fromProjectRoot(path)))
      : fromProjectRoot(path);
    await linkTree(source, join(dir, path), true);
  }
  return paths.length;
}

/**
 * Synthesizes the CDK app with asset bundling skipped (seconds, no credentials) and reads each
 * function's resource from its stack's template.
 */
export async function synthesizeFunctions(): Promise<Record<string, FunctionArtifact>> {
  const { App, Stack } = await import('aws-cdk-lib');
  const { createServiceApp } = await import('../lib/service-app');
  const cdkJson = JSON.parse(readFileSync(fromProjectRoot('cdk.json'), 'utf8')) as {
    context?: Record<string, unknown>;
  };
  const outdir = await mkdtemp(join(tmpdir(), 'function-artifacts-'));
  try {
    // An empty list of bundling stacks: no stack matches, so no NodejsFunction runs esbuild.
    const app = new App({ outdir, context: { ...cdkJson.context, 'aws:cdk:bundling-stacks': [] } });
    const stacks = createServiceApp(app);
    const assembly = app.synth();
    const serviceFunctions = {
      ...stacks.execution.workers,
      ...Object.assign({}, ...Object.values(stacks.routes).map((stack) => stack.functions)),
    } as Record<string, (typeof stacks.execution.workers)[keyof typeof stacks.execution.workers]>;
    const functions: Record<string, FunctionArtifact> = {};
    for (const [id, serviceFunction] of Object.entries(serviceFunctions)) {
      const stack = Stack.of(serviceFunction);
      const logicalId = stack.getLogicalId(serviceFunction.function.node.defaultChild as never);
      const template = assembly.getStackByName(stack.stackName).template as {
        Resources: Record<string, { Properties: Record<string, unknown> }>;
      };
      const properties = template.Resources[logicalId].Properties as {
        Environment?: { Variables?: Record<string, unknown> };
        MemorySize: number;
        Timeout: number;
      };
      functions[id] = {
        stack: stack.stackName,
        logicalId,
        environment: properties.Environment?.Variables ?? {},
        memoryInMb: properties.MemorySize,
        timeoutInSeconds: properties.Timeout,
        nodeModules: [...(serviceFunction.bundling.nodeModules ?? [])],
      };
    }
    return functions;
  } finally {
    await rm(outdir, { recursive: true, force: true });
  }
}

/** The manifest when it was made from the sources as they are now. */
export function freshManifest(): ArtifactManifest | undefined {
  if (!existsSync(manifestFile)) return undefined;
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as ArtifactManifest;
  return manifest.fingerprint === sourceFingerprint() ? manifest : undefined;
}

const lockDir = fromProjectRoot('dist/function-artifacts.lock');
/** A build takes minutes on a busy machine; a lock older than this was left by a process that died. */
const staleLockInMs = 20 * 60_000;

/**
 * One build at a time (two services started at once would remove each other's artifacts): the
 * others wait for it and take its result.
 */
async function withBuildLock<T>(build: () => Promise<T>): Promise<T> {
  await mkdir(fromProjectRoot('dist'), { recursive: true });
  for (;;) {
    try {
      await mkdir(lockDir);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age = Date.now() - (await stat(lockDir).catch(() => ({ mtimeMs: Date.now() }))).mtimeMs;
      if (age > staleLockInMs) await rm(lockDir, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  try {
    return await build();
  } finally {
    await rm(lockDir, { recursive: true, force: true });
  }
}

/** Bundles, synthesizes and installs, unless the artifacts are already those of the current sources. */
export async function ensureFunctionArtifacts(log: (line: string) => void = () => undefined) {
  const found = freshManifest();
  if (found) return { manifest: found, built: false };
  return withBuildLock(() => buildArtifacts(log));
}

async function buildArtifacts(log: (line: string) => void) {
  // Another process may have built them while this one waited for the lock.
  const fresh = freshManifest();
  if (fresh) return { manifest: fresh, built: false };
  const fingerprint = sourceFingerprint();
  const startedAt = Date.now();
  const { bundleAll } = await import('./bundle');
  const [, functions] = await Promise.all([bundleAll(), synthesizeFunctions()]);
  log(`Bundled and synthesized ${Object.keys(functions).length} functions (${Date.now() - startedAt} ms)`);
  const installedAt = Date.now();
  let packages = 0;
  for (const [id, fn] of Object.entries(functions))
    packages += await installBeside(join(artifactsDir, id), fn.nodeModules);
  log(`Installed ${packages} packages beside the bundles (${Date.now() - installedAt} ms)`);
  const manifest: ArtifactManifest = { fingerprint, functions };
  await writeFile(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
  return { manifest, built: true };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  ensureFunctionArtifacts(console.log).then(
    ({ manifest, built }) =>
      console.log(
        `${Object.keys(manifest.functions).length} function artifacts in ${relative(process.cwd(), artifactsDir) || '.'}${built ? '' : ' (up to date)'}`,
      ),
    (error: unknown) => {
      console.error(error instanceof Error ? (error.stack ?? error.message) : error);
      process.exitCode = 1;
    },
  );
}
