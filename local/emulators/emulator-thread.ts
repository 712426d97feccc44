/**
 * The local emulators' DynamoDB and SQS emulators (dynalite with ./dynalite-caches.ts, fauxqs with its
 * journal ./sqs-journal.ts) run in a worker thread of their own (./emulator-thread-worker.ts), on
 * the machine's other core, so that their work per call leaves the thread that serves the API.
 * Their HTTP endpoints listen in that thread for other processes, tests and the AWS CLI; the
 * service's own DynamoDB and SQS clients of this process reach them over a MessagePort each
 * (local/transport/cross-thread-transport.ts), registered as in-process endpoints.
 *
 * Durability is the emulators' own: the thread answers a call only after dynalite's LevelDB write
 * or the queue journal's append, so what this thread sees answered is on disk (in the OS's cache)
 * before the service answers its caller; a killed process takes the thread with it.
 */
import { MessageChannel, Worker } from 'node:worker_threads';
import { type CrossThreadClient, dispatchOverPort } from '../transport/cross-thread-transport';
import { registerInProcessEndpoint } from '../transport/in-process-transport';
import type { EmulatorThreadData } from './emulator-thread-worker';

export interface EmulatorThread {
  endpoints: { dynamodb: string; sqs: string };
  /**
   * Takes the endpoints out of this process's clients (a call then fails as a refused connection
   * does), lets the calls being answered finish (1 s at most), stops both emulators (LevelDB's lock
   * released, the journal closed) and ends the thread.
   */
  stop(): Promise<void>;
}

type ThreadMessage =
  | { type: 'ready'; endpoints: { dynamodb: string; sqs: string } }
  | { type: 'stopped' }
  | { type: 'failed'; error: { name: string; message: string; stack?: string; code?: string } };

export function startEmulatorThread(options: {
  dynamodbPath: string;
  sqsDirectory: string;
  host: string;
}): Promise<EmulatorThread> {
  const dynamodbChannel = new MessageChannel();
  const sqsChannel = new MessageChannel();
  const workerData: EmulatorThreadData = {
    ...options,
    dynamodbPort: dynamodbChannel.port2,
    sqsPort: sqsChannel.port2,
  };
  const worker = new Worker(new URL('./emulator-thread-bootstrap.mjs', import.meta.url), {
    workerData,
    transferList: [dynamodbChannel.port2, sqsChannel.port2],
    // The bootstrap brings its own TypeScript loader; the parent's flags may name another one.
    execArgv: [],
  });
  const clients: CrossThreadClient[] = [
    dispatchOverPort(dynamodbChannel.port1, 'Local DynamoDB'),
    dispatchOverPort(sqsChannel.port1, 'Local SQS'),
  ];
  const unregister: Array<() => void> = [];
  const closeClients = (reason: Error) => {
    for (const take of unregister.splice(0)) take();
    for (const client of clients) client.close(reason);
  };
  let stopRequested = false;
  /** What the thread answered to `stop` (undefined: stopped cleanly), or how it ended unasked. */
  let ended: ((failure?: Error) => void) | undefined;
  const end = new Promise<Error | undefined>((resolve) => {
    ended = resolve;
  });

  return new Promise((resolve, reject) => {
    let ready = false;
    let failed = false;
    // Before it is ready a failure rejects the start; afterwards every call fails at once, naming it.
    const fail = (error: Error) => {
      // A thread that throws also exits: the first of the two says why.
      if (failed) return;
      failed = true;
      closeClients(new Error(`The local emulator thread failed: ${error.message}`, { cause: error }));
      if (!ready) reject(error);
      else if (!stopRequested) console.error('The local emulator thread failed:', error);
      ended?.(error);
    };
    worker.on('error', fail);
    worker.once('exit', (code) => {
      if (stopRequested) ended?.();
      else fail(new Error(`The local emulator thread ended unasked (exit code ${code})`));
    });
    worker.on('message', (message: ThreadMessage) => {
      if (message.type === 'stopped') ended?.();
      else if (message.type === 'failed')
        fail(Object.assign(new Error(message.error.message), message.error));
      else if (message.type === 'ready') {
        ready = true;
        const { endpoints } = message;
        unregister.push(
          registerInProcessEndpoint(endpoints.dynamodb, clients[0].dispatch),
          registerInProcessEndpoint(endpoints.sqs, clients[1].dispatch),
        );
        let stopping: Promise<void> | undefined;
        resolve({
          endpoints,
          stop: () => {
            stopping ??= (async () => {
              for (const take of unregister.splice(0)) take();
              stopRequested = true;
              worker.postMessage({ type: 'stop' });
              const failure = await end;
              closeClients(new Error('The local emulator thread is stopped'));
              await worker.terminate();
              if (failure) throw failure;
            })();
            return stopping;
          },
        });
      }
    });
  }).catch(async (error) => {
    await worker.terminate();
    throw error;
  }) as Promise<EmulatorThread>;
}
