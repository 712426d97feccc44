/**
 * Serves the worker role a bundle was started with. A function that loads the engine lazily (the
 * streaming route imports its wiring on first use) would otherwise start as a worker without ever
 * evaluating the worker module, since a bundle evaluates lazily imported modules only on demand.
 * Importing this module at the top of such a function's entry loads the worker module a role
 * needs, and nothing when the bundle runs as the function itself.
 */
import { isMainThread, workerData } from 'node:worker_threads';
import { documentWorkerRole } from './files/worker-role';
import { sandboxWorkerRole } from './sandbox/worker-protocol';

const role = isMainThread ? undefined : (workerData as { role?: unknown } | undefined)?.role;
if (role === sandboxWorkerRole) void import('./sandbox/worker');
if (role === documentWorkerRole) void import('./files/extract-worker');
