/**
 * Compiles the local server (`npm start`) to JavaScript under dist/server, once, and again only when
 * a source changes. Each TypeScript module becomes one `.js` module at the same relative path, with
 * its project imports pointing at the compiled siblings and its packages left to node_modules: the
 * module graph, and so every per-process cache and override, is the same as from the sources, and
 * paths a module finds beside itself (`import.meta.url`) still resolve. Plain JavaScript, so that
 * starting the server needs no TypeScript loader.
 */
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** What the server is made of: these folders' modules, the form page's sources, and the packages. */
const sourceDirs = ['adapters', 'catalog', 'console', 'core', 'functions', 'local', 'web'];
const extraInputs = ['package-lock.json', 'tsconfig.json', 'scripts/build-server.mjs'];

function sourceFiles() {
  const files = [];
  for (const dir of sourceDirs) {
    for (const name of readdirSync(join(projectRoot, dir), { recursive: true })) {
      const path = join(dir, String(name));
      if (path.startsWith(join('web', 'dist')) || !statSync(join(projectRoot, path)).isFile()) continue;
      files.push(path);
    }
  }
  return files.sort();
}

/** Changes when any input's path, size or modification time does. */
function fingerprintOf(files) {
  const hash = createHash('sha256');
  for (const file of [...files, ...extraInputs]) {
    const stats = statSync(join(projectRoot, file));
    hash.update(`${file}\0${stats.size}\0${stats.mtimeMs}\n`);
  }
  return hash.digest('hex');
}

/** Project imports name `.ts` modules without an extension; compiled, they are `.js` files. */
const compiledSiblings = {
  name: 'compiled-siblings',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^\.\.?\// }, (args) => {
      if (args.kind === 'entry-point') return undefined;
      const target = resolve(args.resolveDir, args.path);
      // A module may name another as compiled (`./on-demand/s3.js`, for `import()`), most name theirs without an extension.
      const candidates = [`${target}.ts`, join(target, 'index.ts'), target.replace(/\.js$/, '.ts')];
      const source = existsSync(target) && statSync(target).isFile() ? target : candidates.find(existsSync);
      if (!source) return { errors: [{ text: `Cannot find ${args.path} from ${args.importer}` }] };
      let specifier = relative(args.resolveDir, source.replace(/\.ts$/, '.js')).split('\\').join('/');
      if (!specifier.startsWith('.')) specifier = `./${specifier}`;
      return { path: specifier, external: true };
    });
  },
};

/**
 * The worker bootstraps load their module through tsx from the sources; compiled, they import
 * the compiled module directly.
 */
function compileBootstrap(text) {
  const body = text
    .split('\n')
    .filter(
      (line) => !line.startsWith('//') && !line.includes('tsx/esm/api') && line.trim() !== 'register();',
    )
    .join('\n')
    .replace(/\.ts'\)/g, ".js')");
  return `// Compiled copy (scripts/build-server.mjs): the worker module is JavaScript already.\n${body.trim()}\n`;
}

/**
 * Builds into `outDir` unless the build there was made from the same sources; returns whether it
 * built. The entry to start is `<outDir>/local/main.js`.
 */
export async function ensureServerBuild(outDir = join(projectRoot, 'dist', 'server')) {
  const files = sourceFiles();
  const fingerprint = fingerprintOf(files);
  const stampFile = join(outDir, 'build-stamp');
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === fingerprint) return false;
  rmSync(outDir, { recursive: true, force: true });
  // The pages' sources (form page, console) are built for the browser when the server starts.
  const pageSources = [join('web', 'src'), join('console', 'src')];
  const isPageSource = (file) => pageSources.some((dir) => file.startsWith(dir));
  const modules = files.filter(
    (file) => file.endsWith('.ts') && !file.endsWith('.d.ts') && !isPageSource(file),
  );
  await build({
    absWorkingDir: projectRoot,
    entryPoints: modules,
    outdir: outDir,
    outbase: '.',
    bundle: true,
    packages: 'external',
    plugins: [compiledSiblings],
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'error',
  });
  for (const file of files) {
    if (file.endsWith('.ts')) continue;
    const target = join(outDir, file);
    mkdirSync(dirname(target), { recursive: true });
    if (file.endsWith('-bootstrap.mjs'))
      writeFileSync(target, compileBootstrap(readFileSync(join(projectRoot, file), 'utf8')));
    else copyFileSync(join(projectRoot, file), target);
  }
  // The pages' sources are built by esbuild when the server starts (web/build.ts, console/build.ts), as TypeScript.
  for (const file of files.filter((name) => isPageSource(name) && name.endsWith('.ts'))) {
    // A folder of page sources only (console/src/pages/) has no compiled module to make it.
    mkdirSync(dirname(join(outDir, file)), { recursive: true });
    copyFileSync(join(projectRoot, file), join(outDir, file));
  }
  writeFileSync(stampFile, fingerprint);
  return true;
}
