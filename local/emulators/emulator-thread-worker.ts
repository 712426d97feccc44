/**
 * The emulator thread's side (./emulator-thread.ts starts it): dynalite with its table cache and
 * fauxqs with its journal, on their HTTP endpoints, and each one's request listener served over the
 * MessagePort the starting thread handed over (local/transport/cross-thread-transport.ts).
 *
 * To the starting thread: `{ type: 'ready', endpoints }` or `{ type: 'failed', error }`, then
 * `{ type: 'stopped' }` or `{ type: 'failed', error }` after it was sent `{ type: 'stop' }`.
 */
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { serveOverPort } from '../transport/cross-thread-transport';
import { plainDispatch } from '../transport/in-process-transport';
import { startDynamoDb } from './dynamodb';
import type { RunningService } from './http-server';
import { startSqs } from './sqs';

export interface EmulatorThreadData {
  dynamodbPath: string;
  sqsDirectory: string;
  host: string;
  dynamodbPort: MessagePort;
  sqsPort: MessagePort;
}

/** How long a stop waits for the calls being answered before it closes the emulators under them. */
const STOP_GRACE_MS = 1_000;

const control = parentPort!;
const data = workerData as EmulatorThreadData;

const plain = (error: unknown) => ({
  name: (error as Error)?.name ?? 'Error',
  message: (error as Error)?.message ?? String(error),
  stack: (error as Error)?.stack,
  code: (error as NodeJS.ErrnoException)?.code,
});

const started = await Promise.allSettled([
  startDynamoDb(data.dynamodbPath, data.host),
  startSqs(data.sqsDirectory, data.host),
]);
const running = started.flatMap((start) => (start.status === 'fulfilled' ? [start.value] : []));
const stopAll = async (services: RunningService[]) => {
  const results = await Promise.allSettled(services.map((service) => service.stop()));
  const failure = results.find((result) => result.status === 'rejected');
  if (failure) throw (failure as PromiseRejectedResult).reason;
};

const [dynamodbStart, sqsStart] = started;
if (dynamodbStart.status === 'rejected' || sqsStart.status === 'rejected') {
  const reason = (dynamodbStart.status === 'rejected' ? dynamodbStart : (sqsStart as PromiseRejectedResult))
    .reason;
  await stopAll(running).catch(() => undefined);
  control.postMessage({ type: 'failed', error: plain(reason) });
  data.dynamodbPort.close();
  data.sqsPort.close();
} else {
  const dynamodb = dynamodbStart.value;
  const sqs = sqsStart.value;
  const servers = [
    serveOverPort(data.dynamodbPort, plainDispatch(dynamodb.listener)),
    serveOverPort(data.sqsPort, plainDispatch(sqs.listener)),
  ];
  control.on('message', async (message: { type: string }) => {
    if (message.type !== 'stop') return;
    try {
      await Promise.all(servers.map((server) => server.idle(STOP_GRACE_MS)));
      await stopAll([dynamodb, sqs]);
      control.postMessage({ type: 'stopped' });
    } catch (error) {
      control.postMessage({ type: 'failed', error: plain(error) });
    } finally {
      // The starting thread ends this thread once it has the answer.
      for (const server of servers) server.close();
    }
  });
  control.postMessage({ type: 'ready', endpoints: { dynamodb: dynamodb.endpoint, sqs: sqs.endpoint } });
}
