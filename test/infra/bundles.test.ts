/**
 * What each function's bundle carries, from esbuild's metafile with the deployed options: the
 * document parsers are never inside a bundle, and exactly the functions flagged `runsBlocks` reach
 * them (so exactly those get them installed beside the bundle).
 */
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
