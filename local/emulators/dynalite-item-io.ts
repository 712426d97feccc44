/**
 * What it earns (`npx tsx bench/ab.ts`, sync runs at one client, 600 each, interleaved with a copy
 * of the project without it, on a 2-core machine at a load average of about 27): without it, p50
 * 1.19x (10.19 against 8.53 ms). It also makes an item and its index entries change together.
 * Kept.
 *
 * How dynalite's store reaches LevelDB for items, on the emulator's thread (./emulator-thread.ts),
 * with fewer hand-offs through libuv's thread pool, each of which wakes a sleeping thread:
 *
 * - Reads (readSynchronously): every conditional write and update reads its item first with
 *   LevelDB's `get`, a trip to the pool for a lookup of microseconds. It is made with `getSync`;
 *   the callback still comes from `setImmediate`, as dynalite's own wrapper calls it, so callers see
 *   the same order of events. A database that is not open goes the old way, to get dynalite's error.
 * - Writes (batchItemWrites): PutItem, UpdateItem and DeleteItem write the item's secondary index
 *   entries first (`updateIndexes`: the deletes, then the puts, each a LevelDB write) and the item
 *   after them: for a log entry with two or three index entries, two rounds through the pool. The
 *   index writes now wait for the item's write and go with it in one `batch`: one round, and the
 *   item and its index entries change together or not at all (dynalite's own order could leave an
 *   index entry without its item when the process died between the writes). The item's write
 *   follows at once: the three actions call `itemDb.put` or `itemDb.del` from the callback of
 *   `updateIndexes`, synchronously, holding the item's lock. Should one not, its index writes go in
 *   a batch of their own right after it.
 *
 * Relies on dynalite 4.0.0's internals (pinned): `updateIndexes` and `getIndexActions` of
 * `dynalite/db`, the store's LevelDB (classic-level's `getSync`, callback `put`, `del`, `batch`) and
 * the key prefixes of its item and index databases. test/integration/local-emulators/dynalite-item-io.test.ts
 * reads the items and index entries back through GetItem and Query, and fails if any of that moves.
 */
import { createRequire } from 'node:module';

type Callback = (error?: unknown) => void;
type Item = Record<string, unknown>;

interface LevelOperation {
  type: 'put' | 'del';
  key: string;
  value?: unknown;
}

interface LevelDb {
  status: string;
  get(key: string, callback?: (error: unknown, value?: unknown) => void): unknown;
  getSync(key: string): unknown;
  put(key: string, value: unknown, callback?: Callback): unknown;
  del(key: string, callback?: Callback): unknown;
  batch(operations: LevelOperation[], callback?: Callback): unknown;
}

/** A dynalite store, as far as its LevelDB goes. */
export interface ItemStore {
  db: LevelDb;
}

interface IndexDefinition {
  IndexName: string;
}

interface Table {
  TableName: string;
  LocalSecondaryIndexes?: IndexDefinition[];
  GlobalSecondaryIndexes?: IndexDefinition[];
}

interface IndexAction {
  index: string;
  key: string;
  item?: Item;
}

type UpdateIndexes = (
  store: object,
  table: Table,
  existingItem: Item | undefined,
  item: Item | undefined | null,
  callback: Callback,
) => void;

interface DynaliteDbModule {
  updateIndexes: UpdateIndexes;
  getIndexActions(
    indexes: IndexDefinition[],
    existingItem: Item | undefined,
    item: Item | undefined | null,
    table: Table,
  ): { puts: IndexAction[]; deletes: IndexAction[] };
}

/** How many item reads were answered synchronously, and item writes went with their index entries, for tests. */
export const itemIoCounts = { synchronousReads: 0, batchedWrites: 0 };

const require = createRequire(import.meta.url);
const dynaliteDb = require('dynalite/db') as DynaliteDbModule;
const originalUpdateIndexes = dynaliteDb.updateIndexes;

/** The index writes of each store's item write under way, waiting for the item's own write. */
const pendingOf = new WeakMap<object, { operations?: LevelOperation[] }>();

/** Has `store` read its items synchronously and write each with its index entries in one batch. */
export function withItemIo<T extends ItemStore>(store: T): T {
  return batchItemWrites(readSynchronously(store));
}

function readSynchronously<T extends ItemStore>(store: T): T {
  const { db } = store;
  if (typeof db?.getSync !== 'function') return store;
  const get = db.get.bind(db);
  db.get = (key, callback) => {
    if (typeof callback !== 'function' || db.status !== 'open') return get(key, callback);
    let value: unknown;
    try {
      value = db.getSync(key);
    } catch (error) {
      setImmediate(callback, error);
      return;
    }
    itemIoCounts.synchronousReads++;
    setImmediate(callback, null, value);
  };
  return store;
}

function batchItemWrites<T extends ItemStore>(store: T): T {
  const pending: { operations?: LevelOperation[] } = {};
  pendingOf.set(store, pending);
  const { db } = store;
  const put = db.put.bind(db);
  const del = db.del.bind(db);
  const withPending = (operation: LevelOperation, callback: Callback | undefined, alone: () => unknown) => {
    const waiting = pending.operations;
    if (!waiting || typeof callback !== 'function') return alone();
    pending.operations = undefined;
    itemIoCounts.batchedWrites++;
    return db.batch([...waiting, operation], callback);
  };
  db.put = (key, value, callback) =>
    withPending({ type: 'put', key, value }, callback, () => put(key, value, callback));
  db.del = (key, callback) => withPending({ type: 'del', key }, callback, () => del(key, callback));
  dynaliteDb.updateIndexes = updateIndexesWithTheItem;
  return store;
}

const updateIndexesWithTheItem: UpdateIndexes = (store, table, existingItem, item, callback) => {
  const pending = pendingOf.get(store);
  if (!pending) {
    originalUpdateIndexes(store, table, existingItem, item, callback);
    return;
  }
  const operations = indexOperations(table, existingItem, item);
  if (operations.length > 0) pending.operations = operations;
  callback();
  if (operations.length === 0 || pending.operations !== operations) return;
  pending.operations = undefined;
  (store as ItemStore).db.batch(operations, () => undefined);
};

/** dynalite's index writes for an item going from `existingItem` to `item`: the deletes, then the puts. */
function indexOperations(table: Table, existingItem: Item | undefined, item: Item | undefined | null) {
  if (!existingItem && !item) return [];
  const deletes: LevelOperation[] = [];
  const puts: LevelOperation[] = [];
  for (const indexType of ['Local', 'Global'] as const) {
    const indexes = table[`${indexType}SecondaryIndexes`] ?? [];
    const actions = dynaliteDb.getIndexActions(indexes, existingItem, item, table);
    // dynalite's getIndexDb: its database of each index, by key prefix in the one LevelDB.
    const prefixOf = (index: string) => `index-${indexType.toLowerCase()}~${table.TableName}~${index}~`;
    for (const action of actions.deletes)
      deletes.push({ type: 'del', key: prefixOf(action.index) + action.key });
    for (const action of actions.puts) {
      puts.push({ type: 'put', key: prefixOf(action.index) + action.key, value: action.item });
    }
  }
  return [...deletes, ...puts];
}
