/**
 * Builds the package into <packageDir>/dist: an ES module and a CommonJS bundle (esbuild, for
 * Node 16), each beside the type declarations (tsc) and a package.json that tells Node and
 * TypeScript which module format the folder holds.
 *
 *   node scripts/build.mjs [packageDir]   (packageDir: this package's folder unless given; another
 *                                          folder also gets package.json and README.md)
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const sdkDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

export async function buildPackage(packageDir = sdkDir) {
  const dist = join(packageDir, 'dist');
  rmSync(dist, { recursive: true, force: true });
  const formats = { esm: 'module', cjs: 'commonjs' };
  for (const [format, type] of Object.entries(formats)) {
    await build({
      entryPoints: [join(sdkDir, 'src/index.ts')],
      outfile: join(dist, format, 'index.js'),
      bundle: true,
      format,
      platform: 'node',
      target: 'node16',
      sourcemap: true,
      logLevel: 'warning',
    });
    writeFileSync(join(dist, format, 'package.json'), `${JSON.stringify({ type }, null, 2)}\n`);
  }
  const declarations = join(dist, 'esm');
  execFileSync(
    process.execPath,
    [
      require.resolve('typescript/bin/tsc'),
      '-p',
      join(sdkDir, 'tsconfig.build.json'),
      '--outDir',
      declarations,
    ],
    { stdio: 'inherit' },
  );
  for (const file of readdirSync(declarations).filter((name) => name.endsWith('.d.ts'))) {
    copyFileSync(join(declarations, file), join(dist, 'cjs', file));
  }
  if (resolve(packageDir) !== sdkDir) {
    mkdirSync(packageDir, { recursive: true });
    copyFileSync(join(sdkDir, 'package.json'), join(packageDir, 'package.json'));
    copyFileSync(join(sdkDir, 'README.md'), join(packageDir, 'README.md'));
  }
  return packageDir;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildPackage(process.argv[2] ? resolve(process.argv[2]) : sdkDir);
}
