/**
 * Starts a worker thread that serves one role. In a Lambda bundle (CommonJS, plain JavaScript) the
 * bundle itself is started as the worker: it carries the worker module, which serves when it finds
 * its role in `workerData`. From the TypeScript sources a small bootstrap module loads the worker
 * module through tsx; it is named lazily, since a bundle has no `import.meta.url` to resolve it by.
 */
import { Worker } from 'node:worker_threads';

export function startRoleWorker(options: {
  sourceBootstrap: () => URL;
  workerData: unknown;
  heapLimitInMb: number;
}): Worker {
  const resourceLimits = { maxOldGenerationSizeMb: options.heapLimitInMb };
  if (typeof __filename === 'string' && __filename.endsWith('.js')) {
    return new Worker(__filename, { workerData: options.workerData, resourceLimits });
  }
  return new Worker(options.sourceBootstrap(), {
    workerData: options.workerData,
    resourceLimits,
    // The bootstrap brings its own TypeScript loader; the parent's flags may name another one.
    execArgv: [],
  });
}
