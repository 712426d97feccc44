/**
 * The DocumentReader port: small files are read on the caller's thread (a worker costs more than
 * they do), files from `workerAboveBytes` (default 256 KB) in a worker thread of their own.
 */
import type { Worker } from 'node:worker_threads';
import { BlockError } from '../../core/engine/blocks/types';
import type { DocumentReader, DocumentReading, FileContent } from '../../core/files/types';
import { startRoleWorker } from '../worker-threads';
import { readDocument } from './extract';
import { type DocumentWorkerData, documentWorkerRole } from './extract-worker';

const defaultWorkerAboveBytes = 256 * 1024;
const workerHeapLimitInMb = 512;

/** The document worker: extract-worker.ts, in this bundle or from the sources (adapters/worker-threads.ts). */
function newWorker(workerData: DocumentWorkerData): Worker {
  return startRoleWorker({
    sourceBootstrap: () => new URL('./extract-worker-bootstrap.mjs', import.meta.url),
    workerData,
    heapLimitInMb: workerHeapLimitInMb,
  });
}

function readInWorker(content: FileContent): Promise<DocumentReading> {
  return new Promise((resolve, reject) => {
    const worker = newWorker({
      role: documentWorkerRole,
      bytes: content.bytes,
      name: content.name,
      type: content.type,
    });
    let settled = false;
    worker.once(
      'message',
      (message: { ok: true; reading: DocumentReading } | { ok: false; message: string }) => {
        settled = true;
        void worker.terminate();
        if (message.ok) resolve(message.reading);
        else reject(new BlockError(message.message));
      },
    );
    worker.once('error', (error) => {
      if (settled) return;
      settled = true;
      reject(new BlockError(`Could not read "${content.name}": ${error.message}`));
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new BlockError(`Could not read "${content.name}": the reader stopped (${code})`));
    });
  });
}

export function createDocumentReader(options: { workerAboveBytes?: number } = {}): DocumentReader {
  const workerAboveBytes = options.workerAboveBytes ?? defaultWorkerAboveBytes;
  return {
    async read(content) {
      if (content.bytes.length >= workerAboveBytes) return readInWorker(content);
      try {
        return await readDocument(content.bytes, content.name, content.type);
      } catch (error) {
        throw new BlockError((error as Error).message);
      }
    },
  };
}
