/**
 * Reads one document in a worker thread, so parsing a large file does not hold up the event loop
 * that serves requests and other blocks. Serves when started with the reader's role in `workerData`.
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { readDocument } from './extract';

export { documentWorkerRole } from './worker-role';
import { documentWorkerRole } from './worker-role';

export interface DocumentWorkerData {
  role: typeof documentWorkerRole;
  bytes: Uint8Array;
  name: string;
  type: string;
}

const data = workerData as DocumentWorkerData | undefined;
if (!isMainThread && parentPort && data?.role === documentWorkerRole) {
  const port = parentPort;
  readDocument(data.bytes, data.name, data.type).then(
    (reading) => port.postMessage({ ok: true, reading }),
    (error: Error) => port.postMessage({ ok: false, message: error.message }),
  );
}
