/**
 * What each function's bundle carries, from esbuild's metafile with the deployed options: the
 * document parsers are never inside a bundle, and exactly the functions flagged `runsBlocks` reach
 * them (so exactly those get them installed beside the bundle).
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { build, type Metafile } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { documentReaderModules, esbuildBuildOptions } from '../../lib/bundling';
import { fromProjectRoot, projectRoot } from '../../lib/project';
import { type RouteDefinition, routes, type WorkerDefinition, workers } from '../../catalog/routes';

const functions = [
  ...(routes as readonly RouteDefinition[]),
  ...(Object.values(workers) as WorkerDefinition[]),
];
const metafiles = new Map<string, Metafile>();

beforeAll(async () => {
  await Promise.all(
    functions.map(async (fn) => {
      const result = await build({
        ...esbuildBuildOptions,
        absWorkingDir: projectRoot,
        entryPoints: [fromProjectRoot(fn.entry)],
        outfile: `out/${fn.id}.js`,
        write: false,
        metafile: true,
        logLevel: 'error',
      });
      metafiles.set(fn.id, result.metafile);
    }),
  );
}, 120_000);

const isParser = (path: string) =>
  documentReaderModules.some(
    (name) => path === name || path.startsWith(`${name}/`) || path.includes(`node_modules/${name}/`),
  );

describe('function bundles', () => {
  it('never carry a document parser inside', () => {
    for (const [id, metafile] of metafiles) {
      // Assess
      expect(Object.keys(metafile.inputs).filter(isParser), id).toEqual([]);
    }
  });

  it('reach the parsers exactly when the function is flagged runsBlocks', () => {
    for (const fn of functions) {
      // Act
      const output = Object.values(metafiles.get(fn.id)?.outputs ?? {}).find(
        (candidate) => candidate.entryPoint,
      );
      const reaches = (output?.imports ?? []).some(
        (imported) => imported.external && isParser(imported.path),
      );

      // Assess
      expect(reaches, fn.id).toBe(fn.runsBlocks === true);
    }
  });
});

describe('a bundle that runs blocks, started as a document worker', () => {
  const outDir = fromProjectRoot('dist/test-bundles');

  it.each(functions.filter((fn) => fn.runsBlocks).map((fn) => [fn.id, fn.entry]))(
    '%s reads a document in the worker thread it starts from itself',
    async (id, entry) => {
      // Prepare: the bundle as deployed, beside a package.json that makes it CommonJS
      await rm(join(outDir, id), { recursive: true, force: true });
      await mkdir(join(outDir, id), { recursive: true });
      await writeFile(join(outDir, 'package.json'), '{"type": "commonjs"}\n');
      const outfile = join(outDir, id, 'index.js');
      await build({
        ...esbuildBuildOptions,
        absWorkingDir: projectRoot,
        entryPoints: [fromProjectRoot(entry)],
        outfile,
        logLevel: 'error',
      });

      // Act
      const answer = await new Promise<unknown>((resolve, reject) => {
        const worker = new Worker(outfile, {
          workerData: {
            role: 'document-reader',
            bytes: new Uint8Array(Buffer.from('a,b\n1,2')),
            name: 'a.csv',
            type: 'text/csv',
          },
        });
        worker.once('message', (message) => {
          void worker.terminate();
          resolve(message);
        });
        worker.once('error', reject);
        worker.once('exit', () => resolve('exited without answering'));
      });

      // Assess
      expect(answer).toEqual({ ok: true, reading: { type: 'text/csv', text: 'a, b\n1, 2' } });
    },
    60_000,
  );
});
