/**
 * A package loaded when first used rather than at start-up (lib/bundling.ts lists these and keeps
 * them out of the bundles, installed beside the functions that use them). Synchronous, so callers
 * in synchronous code (the local scheduler's cron evaluation) can use it.
 */
import { createRequire } from 'node:module';

/** A loader of package `name`, which requires it on its first call and keeps it. */
export function onDemandModule<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => {
    // A CommonJS bundle has no import.meta.url and requires the package from beside it; the
    // sources (and the local server's ES module build) require it from node_modules.
    loaded ??= (import.meta.url ? createRequire(import.meta.url)(name) : require(name)) as T;
    return loaded;
  };
}
