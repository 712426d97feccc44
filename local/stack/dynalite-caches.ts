/**
 * Per-process caches inside dynalite for the local stack: dynalite reads a table's description from
 * LevelDB (a trip to libuv's thread pool and a JSON parse) before every item call, though a table
 * changes only through CreateTable, UpdateTable and DeleteTable. Here each store keeps the ACTIVE
 * tables' descriptions its item calls read, and drops one as soon as its description is written or
 * deleted through that store (the only writer: a data dir is locked to one process).
 *
 * dynalite builds its store in `require('dynalite/db').create` when `dynalite()` is called, so the
 * caches are installed by wrapping that function around the call (withTableCache). The description is
 * shared between the item calls that read it: they only read it (dynalite's actions that change a
 * table, DescribeTable and the tag calls read their own copy, as before).
 */
import { createRequire } from 'node:module';

type Callback = (error: unknown, table?: TableDescription) => void;
interface TableDescription {
  TableStatus?: string;
}
interface TableDb {
  put(key: string, value: unknown, callback: (error?: unknown) => void): void;
  del(key: string, callback: (error?: unknown) => void): void;
}
interface DynaliteStore {
  tableDb: TableDb;
  getTable(name: string, checkStatus: boolean | Callback, callback?: Callback): void;
}
interface DynaliteDbModule {
  create(options: unknown): DynaliteStore;
}

/** How often each store's table cache answered or missed, for tests and the bench. */
export interface TableCacheCounts {
  hits: number;
  misses: number;
}

const dynaliteDb = createRequire(import.meta.url)('dynalite/db') as DynaliteDbModule;

/**
 * Calls `start` (which calls `dynalite()`) with every store it creates keeping a table cache;
 * returns what `start` returns and the cache's counts.
 */
export function withTableCache<T>(start: () => T): { started: T; counts: TableCacheCounts } {
  const counts: TableCacheCounts = { hits: 0, misses: 0 };
  const create = dynaliteDb.create;
  dynaliteDb.create = (options) => cacheTables(create(options), counts);
  try {
    return { started: start(), counts };
  } finally {
    dynaliteDb.create = create;
  }
}

function cacheTables(store: DynaliteStore, counts: TableCacheCounts): DynaliteStore {
  const active = new Map<string, TableDescription>();
  // Bumped when a write or delete of a description starts and when it ends, so a read that was on
  // its way meanwhile does not put back what it read before the change.
  const versions = new Map<string, number>();
  const versionOf = (name: string) => versions.get(name) ?? 0;
  const changing = (name: string) => {
    versions.set(name, versionOf(name) + 1);
    active.delete(name);
  };

  const { tableDb } = store;
  const put = tableDb.put.bind(tableDb);
  const del = tableDb.del.bind(tableDb);
  tableDb.put = (key, value, callback) => {
    changing(key);
    put(key, value, (error) => {
      changing(key);
      callback(error);
    });
  };
  tableDb.del = (key, callback) => {
    changing(key);
    del(key, (error) => {
      changing(key);
      callback(error);
    });
  };

  const getTable = store.getTable.bind(store);
  store.getTable = (name, checkStatus, callback) => {
    // The item calls pass only a callback (dynalite then treats it as "check the status"); the calls
    // that change or show a table pass `false` and may change what they get, so they read their own.
    if (typeof checkStatus !== 'function') {
      getTable(name, checkStatus, callback);
      return;
    }
    const done = checkStatus;
    const cached = active.get(name);
    if (cached) {
      counts.hits++;
      // Asynchronous as a LevelDB read is, so callers see the same order of events.
      process.nextTick(done, null, cached);
      return;
    }
    counts.misses++;
    const version = versionOf(name);
    getTable(name, (error: unknown, table?: TableDescription) => {
      if (!error && table?.TableStatus === 'ACTIVE' && versionOf(name) === version) active.set(name, table);
      done(error, table);
    });
  };
  return store;
}
