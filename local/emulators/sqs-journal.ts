/**
 * Durability for fauxqs's in-memory SQS: an append-only journal of queue and message changes.
 *
 * What it earns: the queues survive a restart (without it fauxqs loses every message, the async
 * runs' jobs and the notifications' deliveries among them). A durability patch, not a speed one,
 * so no bench figure: nothing would replace it.
 *
 * Every queue the store creates gets its mutating methods (enqueue, dequeue, deleteMessage,
 * changeVisibility, purge) wrapped so that they mark what they touched. `flush()` turns the marks into
 * JSON lines (the message as it is now: ready, delayed, or in flight with its receipt handle and
 * visibility deadline; or its deletion) and appends them in one write. The server awaits `flush()`
 * before it sends a response, so an answered SendMessage is in the journal. On start the journal is
 * replayed (a torn last line from a crash is ignored) and rewritten compacted; it is compacted again
 * when it grows well past the live state.
 *
 * Visibility timeouts and delays that run out need no record: deadlines are absolute times, and fauxqs
 * moves such messages back to ready when it next looks at the queue, after a restart too.
 */
import { type FileHandle, open, readFile, rename, writeFile } from 'node:fs/promises';

/** A message as fauxqs stores it (plain JSON). */
export interface StoredMessage {
  messageId: string;
  body: string;
  messageGroupId?: string;
  [field: string]: unknown;
}

interface InflightEntry {
  message: StoredMessage;
  receiptHandle: string;
  visibilityDeadline: number;
}

/** The parts of fauxqs@1.9.2's SqsQueue that the journal reads, wraps and restores. */
export interface FauxQueue {
  name: string;
  url: string;
  arn: string;
  attributes: Record<string, string>;
  tags: Map<string, string>;
  createdTimestamp: number;
  lastModifiedTimestamp: number;
  sequenceCounter: number;
  messages: StoredMessage[];
  delayedMessages: StoredMessage[];
  inflightMessages: Map<string, InflightEntry>;
  fifoMessages: Map<string, StoredMessage[]>;
  fifoDelayed: Map<string, StoredMessage[]>;
  fifoLockedGroups: Map<string, number>;
  isFifo(): boolean;
  enqueue(message: StoredMessage): void;
  dequeue(...args: unknown[]): Array<{ MessageId: string; ReceiptHandle: string }>;
  deleteMessage(receiptHandle: string): boolean;
  changeVisibility(receiptHandle: string, timeoutSeconds: number): void;
  purge(): void;
}

/** The parts of fauxqs@1.9.2's SqsStore that the journal uses. */
export interface FauxSqsStore {
  host: string;
  createQueue(
    name: string,
    url: string,
    arn: string,
    attributes?: Record<string, string>,
    tags?: Record<string, string>,
  ): FauxQueue;
  deleteQueue(url: string): boolean;
  getQueue(url: string): FauxQueue | undefined;
  listQueues(): FauxQueue[];
}

type MessageState = { s: 'r' } | { s: 'd' } | { s: 'i'; h: string; v: number };

interface QueueRecord {
  t: 'q';
  name: string;
  arn: string;
  attributes: Record<string, string>;
  tags: Record<string, string>;
  created: number;
  modified: number;
  seq: number;
}

type MessageRecord = { t: 'm'; q: string; m: StoredMessage } & MessageState;

type JournalRecord =
  | QueueRecord
  | { t: 'qd'; name: string }
  | { t: 'p'; q: string }
  | MessageRecord
  | { t: 'x'; id: string };

/** What a journal holds once replayed. */
export interface ReplayedState {
  queues: Map<string, QueueRecord>;
  /** In the order of their last change. */
  messages: Map<string, MessageRecord>;
}

/** Only a journal this many times the size of the live state (and at least 8 MB) is compacted while running. */
const COMPACT_FACTOR = 4;
const COMPACT_MIN_BYTES = 8 * 1024 * 1024;

export async function readJournal(path: string): Promise<ReplayedState> {
  const state: ReplayedState = { queues: new Map(), messages: new Map() };
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return state;
    throw error;
  }
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    if (!line) return;
    let record: JournalRecord;
    try {
      record = JSON.parse(line) as JournalRecord;
    } catch (error) {
      // A crash can tear the last append; anything before it was written whole.
      if (lines.slice(index + 1).every((rest) => !rest)) return;
      throw new Error(`Local queue journal ${path} is damaged at line ${index + 1}`, { cause: error });
    }
    apply(state, record);
  });
  return state;
}

function apply(state: ReplayedState, record: JournalRecord): void {
  const dropQueueMessages = (queueName: string) => {
    for (const [id, message] of state.messages) if (message.q === queueName) state.messages.delete(id);
  };
  switch (record.t) {
    case 'q':
      state.queues.set(record.name, record);
      break;
    case 'qd':
      state.queues.delete(record.name);
      dropQueueMessages(record.name);
      break;
    case 'p':
      dropQueueMessages(record.q);
      break;
    case 'm':
      state.messages.delete(record.m.messageId);
      state.messages.set(record.m.messageId, record);
      break;
    case 'x':
      state.messages.delete(record.id);
      break;
  }
}

/** Recreates the replayed queues and messages in the store; queue URLs are built on `endpoint`. */
export function restoreInto(store: FauxSqsStore, state: ReplayedState, endpoint: string): void {
  const byName = new Map<string, FauxQueue>();
  for (const saved of state.queues.values()) {
    const queue = store.createQueue(
      saved.name,
      `${endpoint}/000000000000/${saved.name}`,
      saved.arn,
      saved.attributes,
      saved.tags,
    );
    queue.createdTimestamp = saved.created;
    queue.lastModifiedTimestamp = saved.modified;
    queue.sequenceCounter = saved.seq;
    byName.set(saved.name, queue);
  }
  for (const record of state.messages.values()) {
    const queue = byName.get(record.q);
    if (!queue) continue;
    const message = record.m;
    const groupId = message.messageGroupId ?? '__default';
    const append = (groups: Map<string, StoredMessage[]>) =>
      groups.set(groupId, [...(groups.get(groupId) ?? []), message]);
    if (record.s === 'i') {
      queue.inflightMessages.set(record.h, {
        message,
        receiptHandle: record.h,
        visibilityDeadline: record.v,
      });
      if (queue.isFifo()) queue.fifoLockedGroups.set(groupId, (queue.fifoLockedGroups.get(groupId) ?? 0) + 1);
    } else if (queue.isFifo()) {
      append(record.s === 'r' ? queue.fifoMessages : queue.fifoDelayed);
    } else if (record.s === 'r') {
      queue.messages.push(message);
    } else {
      queue.delayedMessages.push(message);
    }
  }
}

export class QueueJournal {
  private readonly touched = new Map<string, { queue: FauxQueue; message: StoredMessage }>();
  private readonly deleted = new Set<string>();
  private readonly purged = new Set<FauxQueue>();
  /** Last queue record written, by name, with the queue object it described. */
  private readonly written = new Map<string, { queue: FauxQueue; text: string }>();
  private handle: FileHandle | undefined;
  private appendedBytes = 0;
  private compactedBytes = 0;
  /** Set when an append failed: what it held is only in memory, so the next flush rewrites everything. */
  private mustCompact = false;
  private current: Promise<void> | undefined;
  private next: Promise<void> | undefined;

  constructor(
    private readonly store: FauxSqsStore,
    private readonly path: string,
  ) {
    const createQueue = store.createQueue.bind(store);
    store.createQueue = (...args) => this.instrument(createQueue(...args));
  }

  /** Whether messages were changed since the last flush (queue metadata is compared at every flush). */
  get dirty(): boolean {
    return this.touched.size > 0 || this.deleted.size > 0 || this.purged.size > 0;
  }

  /** Rewrites the journal as the live state and opens it for appending. */
  async open(): Promise<void> {
    await this.compact();
  }

  /** Resolves once every change made before the call is appended; calls during a write share the next one. */
  flush(): Promise<void> {
    if (this.next) return this.next;
    if (!this.current) {
      this.current = this.write().finally(() => {
        this.current = undefined;
      });
      return this.current;
    }
    this.next = this.current
      .catch(() => undefined)
      .then(() => {
        this.next = undefined;
        return this.flush();
      });
    return this.next;
  }

  async close(): Promise<void> {
    await this.flush();
    await this.handle?.close();
    this.handle = undefined;
  }

  private instrument(queue: FauxQueue): FauxQueue {
    const mark = (message: StoredMessage) => this.touched.set(message.messageId, { queue, message });
    const { enqueue, dequeue, deleteMessage, changeVisibility, purge } = queue;
    queue.enqueue = (message) => {
      enqueue.call(queue, message);
      mark(message);
    };
    queue.dequeue = (...args) => {
      // Messages moved to a dead-letter queue are marked by that queue's enqueue.
      const received = dequeue.apply(queue, args);
      for (const { ReceiptHandle } of received) {
        const entry = queue.inflightMessages.get(ReceiptHandle);
        if (entry) mark(entry.message);
      }
      return received;
    };
    queue.deleteMessage = (receiptHandle) => {
      const entry = queue.inflightMessages.get(receiptHandle);
      const deleted = deleteMessage.call(queue, receiptHandle);
      if (entry) {
        this.touched.delete(entry.message.messageId);
        this.deleted.add(entry.message.messageId);
      }
      return deleted;
    };
    queue.changeVisibility = (receiptHandle, timeoutSeconds) => {
      const entry = queue.inflightMessages.get(receiptHandle);
      changeVisibility.call(queue, receiptHandle, timeoutSeconds);
      if (entry) mark(entry.message);
    };
    queue.purge = () => {
      purge.call(queue);
      for (const [id, touched] of this.touched) if (touched.queue === queue) this.touched.delete(id);
      this.purged.add(queue);
    };
    return queue;
  }

  private isLive(queue: FauxQueue): boolean {
    return this.store.getQueue(queue.url) === queue;
  }

  private queueRecords(): JournalRecord[] {
    const records: JournalRecord[] = [];
    const live = new Set<string>();
    for (const queue of this.store.listQueues()) {
      live.add(queue.name);
      const record: QueueRecord = {
        t: 'q',
        name: queue.name,
        arn: queue.arn,
        attributes: queue.attributes,
        tags: Object.fromEntries(queue.tags),
        created: queue.createdTimestamp,
        modified: queue.lastModifiedTimestamp,
        seq: queue.sequenceCounter,
      };
      const text = JSON.stringify(record);
      const before = this.written.get(queue.name);
      if (before?.queue === queue && before.text === text) continue;
      if (before && before.queue !== queue) records.push({ t: 'qd', name: queue.name });
      records.push(record);
      this.written.set(queue.name, { queue, text });
    }
    for (const name of [...this.written.keys()]) {
      if (live.has(name)) continue;
      records.push({ t: 'qd', name });
      this.written.delete(name);
    }
    return records;
  }

  /** Takes the marks made so far and answers the lines that record them. */
  private collect(): string[] {
    const records = this.queueRecords();
    for (const queue of this.purged) if (this.isLive(queue)) records.push({ t: 'p', q: queue.name });
    for (const { queue, message } of this.touched.values()) {
      if (!this.isLive(queue)) continue;
      const state = locate(queue, message);
      if (state) records.push({ t: 'm', q: queue.name, m: message, ...state });
    }
    for (const id of this.deleted) records.push({ t: 'x', id });
    this.purged.clear();
    this.touched.clear();
    this.deleted.clear();
    return records.map((record) => JSON.stringify(record));
  }

  private async write(): Promise<void> {
    if (this.mustCompact || !this.handle) return this.compact();
    const lines = this.collect();
    if (lines.length === 0) return;
    const text = `${lines.join('\n')}\n`;
    try {
      await this.handle.write(text);
    } catch (error) {
      this.mustCompact = true;
      throw error;
    }
    this.appendedBytes += Buffer.byteLength(text);
    if (this.appendedBytes > Math.max(COMPACT_MIN_BYTES, COMPACT_FACTOR * this.compactedBytes)) {
      await this.compact();
    }
  }

  /** Writes the whole live state to a new file, swaps it in, and appends to it from then on. */
  private async compact(): Promise<void> {
    this.written.clear();
    const lines = this.queueRecords().map((record) => JSON.stringify(record));
    for (const queue of this.store.listQueues()) {
      const line = (message: StoredMessage, state: MessageState) =>
        lines.push(JSON.stringify({ t: 'm', q: queue.name, m: message, ...state }));
      const fifo = queue.isFifo();
      const ready = fifo ? [...queue.fifoMessages.values()].flat() : queue.messages;
      const delayed = fifo ? [...queue.fifoDelayed.values()].flat() : queue.delayedMessages;
      for (const message of ready) line(message, { s: 'r' });
      for (const message of delayed) line(message, { s: 'd' });
      for (const entry of queue.inflightMessages.values()) {
        line(entry.message, { s: 'i', h: entry.receiptHandle, v: entry.visibilityDeadline });
      }
    }
    this.purged.clear();
    this.touched.clear();
    this.deleted.clear();
    const text = lines.length > 0 ? `${lines.join('\n')}\n` : '';
    const temporary = `${this.path}.${process.pid}.tmp`;
    try {
      await this.handle?.close();
      this.handle = undefined;
      await writeFile(temporary, text);
      await rename(temporary, this.path);
      this.handle = await open(this.path, 'a');
    } catch (error) {
      this.mustCompact = true;
      throw error;
    }
    this.mustCompact = false;
    this.compactedBytes = Buffer.byteLength(text);
    this.appendedBytes = 0;
  }
}

/** Where a message is in its queue now; undefined once it has left it. */
function locate(queue: FauxQueue, message: StoredMessage): MessageState | undefined {
  for (const entry of queue.inflightMessages.values()) {
    if (entry.message === message) return { s: 'i', h: entry.receiptHandle, v: entry.visibilityDeadline };
  }
  if (queue.isFifo()) {
    for (const group of queue.fifoMessages.values()) if (group.includes(message)) return { s: 'r' };
    for (const group of queue.fifoDelayed.values()) if (group.includes(message)) return { s: 'd' };
    return undefined;
  }
  if (queue.messages.includes(message)) return { s: 'r' };
  if (queue.delayedMessages.includes(message)) return { s: 'd' };
  return undefined;
}
