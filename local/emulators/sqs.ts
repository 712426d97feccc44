/**
 * SQS API of the local emulators: fauxqs, made durable.
 *
 * fauxqs@1.9.2 keeps everything in memory and has no persistence option ("Persistence across restarts"
 * is in its list of limitations). It is otherwise a faithful SQS: visibility timeouts,
 * ChangeMessageVisibility, delays, long polling, and RedrivePolicy (a message received more than
 * maxReceiveCount times moves to the dead-letter queue on the next receive).
 *
 * Durability is added here, within the installed packages: the server runs on an SQS store that this
 * module creates and hands to fauxqs's public `buildApp({ stores })`, and every change to a queue or
 * message is appended to `<dir>/queues.jsonl` (./sqs-journal.ts) BEFORE the response is sent. So a
 * message whose SendMessage was answered is on disk, and a restart restores every queue with its ready,
 * delayed and in-flight messages: ids, receipt handles, receive counts and visibility deadlines (a
 * consumer that crashed mid-message sees it again when its visibility timeout ends, and a poison
 * message still reaches the DLQ). Not covered: power loss before the OS writes its cache out (no fsync,
 * which would cost milliseconds per message), FIFO deduplication ids (a 5-minute window, forgotten on
 * restart), and SNS topics (the service does not use SNS).
 *
 * The store classes are not exported by fauxqs, so they are loaded from its dist folder; the package
 * is pinned to an exact version and `assertStoreShape` fails loudly if those internals ever change.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import type { RequestListener } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildApp } from 'fauxqs';
import { httpUrl, type RunningService } from './http-server';
import { type FauxSqsStore, QueueJournal, readJournal, restoreInto } from './sqs-journal';

const JOURNAL_FILE = 'queues.jsonl';
const READ_ONLY_ACTIONS = new Set(['GetQueueUrl', 'ListQueues', 'GetQueueAttributes', 'ListQueueTags']);

type Stores = NonNullable<NonNullable<Parameters<typeof buildApp>[0]>['stores']>;

export interface RunningSqs extends RunningService {
  /**
   * fastify's HTTP request listener, for callers that hand it requests without a socket: it runs the
   * same hooks (the journal's among them) as a request over the wire.
   */
  listener: RequestListener;
}

export async function startSqs(directory: string, host: string): Promise<RunningSqs> {
  await mkdir(directory, { recursive: true });
  const journalPath = join(directory, JOURNAL_FILE);
  const saved = await readJournal(journalPath);

  const { SqsStore, SnsStore, S3Store } = await loadStoreClasses();
  const sqsStore = new SqsStore() as unknown as FauxSqsStore;
  assertStoreShape(sqsStore);
  // An empty host makes fauxqs build queue URLs from the request's Host header (http://127.0.0.1:<port>/...)
  // rather than http://sqs.<region>.localhost:<port>/..., which not every resolver maps to loopback.
  sqsStore.host = '';
  const journal = new QueueJournal(sqsStore, journalPath);
  const stores = { sqsStore, snsStore: new SnsStore(), s3Store: new S3Store() } as unknown as Stores;

  const app = buildApp({ logger: false, stores });
  app.addHook(
    'onSend',
    async (request: { headers: Record<string, unknown> }, _reply: unknown, payload: unknown) => {
      const target = request.headers['x-amz-target'];
      const sqsChange =
        typeof target === 'string' &&
        target.startsWith('AmazonSQS.') &&
        !READ_ONLY_ACTIONS.has(target.slice(10));
      if (sqsChange || journal.dirty) await journal.flush();
      return payload;
    },
  );
  await app.listen({ port: 0, host });
  const { port } = app.server.address() as { port: number };
  const endpoint = httpUrl(host, port);

  try {
    restoreInto(sqsStore, saved, endpoint);
    await journal.open();
  } catch (error) {
    await app.close();
    throw error;
  }
  return {
    endpoint,
    listener: app.server.listeners('request')[0] as RequestListener,
    async stop() {
      await app.close();
      await journal.close();
    },
  };
}

interface StoreClasses {
  SqsStore: new () => unknown;
  SnsStore: new () => unknown;
  S3Store: new () => unknown;
}

let storeClasses: Promise<StoreClasses> | undefined;
function loadStoreClasses(): Promise<StoreClasses> {
  storeClasses ??= (async () => {
    const dist = fauxqsDist();
    const load = (path: string) => import(pathToFileURL(join(dist, path)).href);
    const [sqs, sns, s3] = await Promise.all([
      load('sqs/sqsStore.js'),
      load('sns/snsStore.js'),
      load('s3/s3Store.js'),
    ]);
    return { SqsStore: sqs.SqsStore, SnsStore: sns.SnsStore, S3Store: s3.S3Store };
  })();
  return storeClasses;
}

/** fauxqs's package exports only its entry point; its dist folder is found the way Node finds the package. */
function fauxqsDist(): string {
  const require = createRequire(import.meta.url);
  for (const folder of require.resolve.paths('fauxqs') ?? []) {
    const dist = join(folder, 'fauxqs', 'dist');
    if (existsSync(join(dist, 'sqs', 'sqsStore.js'))) return dist;
  }
  throw new Error('fauxqs is not installed');
}

function assertStoreShape(store: FauxSqsStore): void {
  const storeOk = ['createQueue', 'deleteQueue', 'getQueue', 'listQueues'].every(
    (method) => typeof (store as unknown as Record<string, unknown>)[method] === 'function',
  );
  const probe = storeOk ? store.createQueue('__shape_probe__', 'probe', 'arn:probe') : undefined;
  const queueOk =
    probe !== undefined &&
    ['enqueue', 'dequeue', 'deleteMessage', 'changeVisibility', 'purge', 'isFifo'].every(
      (method) => typeof (probe as unknown as Record<string, unknown>)[method] === 'function',
    ) &&
    Array.isArray(probe.messages) &&
    Array.isArray(probe.delayedMessages) &&
    probe.inflightMessages instanceof Map &&
    probe.fifoMessages instanceof Map &&
    probe.fifoDelayed instanceof Map &&
    probe.fifoLockedGroups instanceof Map &&
    probe.tags instanceof Map &&
    typeof probe.sequenceCounter === 'number' &&
    typeof probe.createdTimestamp === 'number';
  if (probe) store.deleteQueue('probe');
  if (!storeOk || !queueOk || 'host' in store === false) {
    throw new Error('The installed fauxqs no longer has the store internals the durable local queue needs');
  }
}
