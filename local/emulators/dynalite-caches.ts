/**
 * What it earns (`npx tsx bench/ab.ts`, sync runs at one client, 600 each, interleaved with copies
 * of the project without it, on a 2-core machine at a load average of about 27): without the table
 * cache and the expression memo, p50 1.22x (10.40 against 8.53 ms); without them and
 * ./dynalite-item-io.ts, 1.26x (12.81 against 10.18 ms). Kept.
 *
 * Per-process caches inside dynalite for the local emulators: dynalite reads a table's description from
 * LevelDB (a trip to libuv's thread pool and a JSON parse) before every item call, though a table
 * changes only through CreateTable, UpdateTable and DeleteTable. Here each store keeps the ACTIVE
 * tables' descriptions its item calls read, and drops one as soon as its description is written or
 * deleted through that store (the only writer: a data dir is locked to one process).
 *
 * dynalite builds its store in `require('dynalite/db').create` when `dynalite()` is called, so the
 * caches are installed by wrapping that function around the call (withTableCache). The description is
 * shared between the item calls that read it: they only read it (dynalite's actions that change a
 * table, DescribeTable and the tag calls read their own copy, as before).
 *
 * The same call also installs a memo of dynalite's parsed expressions (memoizeExpressions), and has
 * the store read items synchronously and write each with its index entries in one batch
 * (./dynalite-item-io.ts).
 */
import { createRequire } from 'node:module';
import { type ItemStore, withItemIo } from './dynalite-item-io';

type Callback = (error: unknown, table?: TableDescription) => void;
interface TableDescription {
  TableStatus?: string;
}
interface TableDb {
  put(key: string, value: unknown, callback: (error?: unknown) => void): void;
  del(key: string, callback: (error?: unknown) => void): void;
}
interface DynaliteStore extends ItemStore {
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

const require = createRequire(import.meta.url);
const dynaliteDb = require('dynalite/db') as DynaliteDbModule;

/**
 * Calls `start` (which calls `dynalite()`) with every store it creates keeping a table cache;
 * returns what `start` returns and the cache's counts.
 */
export function withTableCache<T>(start: () => T): { started: T; counts: TableCacheCounts } {
  memoizeExpressions();
  const counts: TableCacheCounts = { hits: 0, misses: 0 };
  const create = dynaliteDb.create;
  dynaliteDb.create = (options) => withItemIo(cacheTables(create(options), counts));
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

/** What dynalite's validation hands its expression parsers (dynalite/validations/index.js `parse`). */
interface ParseContext {
  attrNames?: Record<string, string>;
  attrVals?: Record<string, Record<string, unknown>>;
  unusedAttrNames?: Record<string, boolean>;
  unusedAttrVals?: Record<string, boolean>;
  isKeyCondition?: boolean;
  /** dynalite's comparison of two attribute values (dynalite/db `compare`), as its parsers use it. */
  compare?: (operator: 'GT', first: unknown, second: unknown) => boolean;
}
interface ExpressionParser {
  parse(expression: string, options: { context: ParseContext }): unknown;
}

/** A parse with the request's attribute values taken out, and the names and values it used. */
interface ParsedExpression {
  template: unknown;
  namesUsed: string[];
  valuesUsed: string[];
  /** The BETWEENs whose two bounds are both values: the one check of a parse that reads them. */
  betweenBounds: [lower: string, upper: string][];
}

/** How often the expression memo answered or missed, over the process (it is per process). */
export const expressionMemoCounts: TableCacheCounts = { hits: 0, misses: 0 };

/** Past this many expressions kept, the oldest is dropped. */
export const EXPRESSION_MEMO_SIZE = 500;

/** Where a template holds one of the request's attribute values. */
class ValueSlot {
  constructor(readonly name: string) {}
}

let expressionsMemoized = false;

/**
 * dynalite parses every condition, update, key condition, filter and projection expression anew
 * with PEG parsers that build their few hundred closures on each call: 50 to 190 µs of CPU per
 * expression, though a service sends the same few expressions again and again. Each parser is
 * wrapped here with a memo of its successful parses (failures are parsed, and reported, every
 * time), bounded to {@link EXPRESSION_MEMO_SIZE} entries.
 *
 * A parse depends on the expression, the attribute names, whether it is a key condition, and of
 * the attribute values on their types only (operand type checks), except in two checks that read a
 * value: BETWEEN's bounds in order, and attribute_type's type name. So the memo's key holds the
 * values' types, or the values themselves when the expression mentions BETWEEN or attribute_type,
 * and an entry keeps the parse with the values taken out (ValueSlot): a hit is a fresh copy with
 * this request's values put in, as the parser would have returned it, and marks the names and
 * values it uses as used, as the parser does (dynalite reports the unused ones).
 */
function memoizeExpressions(): void {
  if (expressionsMemoized) return;
  expressionsMemoized = true;
  for (const name of ['conditionParser', 'updateParser', 'projectionParser']) {
    const parser = require(`dynalite/db/${name}`) as ExpressionParser;
    const parse = parser.parse;
    const memo = new Map<string, ParsedExpression>();
    parser.parse = (expression, options) => {
      const { context } = options;
      const values = context.attrVals ?? {};
      const key = memoKey(expression, context);
      const known = memo.get(key);
      // Bounds out of order are the parser's error to report, worded as it does.
      if (known && boundsInOrder(known.betweenBounds, values, context)) {
        expressionMemoCounts.hits++;
        for (const used of known.namesUsed) delete context.unusedAttrNames?.[used];
        for (const used of known.valuesUsed) delete context.unusedAttrVals?.[used];
        return fromTemplate(known.template, values);
      }
      expressionMemoCounts.misses++;
      // Parsed with every name and value unused, to learn which this expression uses.
      const unusedNames = Object.fromEntries(Object.keys(context.attrNames ?? {}).map((n) => [n, true]));
      const unusedValues = Object.fromEntries(Object.keys(values).map((n) => [n, true]));
      const result = parse(expression, {
        context: { ...context, unusedAttrNames: unusedNames, unusedAttrVals: unusedValues },
      });
      const namesUsed = Object.keys(context.attrNames ?? {}).filter((n) => !(n in unusedNames));
      const valuesUsed = Object.keys(values).filter((n) => !(n in unusedValues));
      for (const used of namesUsed) delete context.unusedAttrNames?.[used];
      for (const used of valuesUsed) delete context.unusedAttrVals?.[used];
      // A string is the expression's error: not kept, so it is found and reported again each time.
      if (result !== null && typeof result === 'object') {
        const slots = new Map<unknown, string>(Object.entries(values).map(([n, value]) => [value, n]));
        const template = toTemplate(result, slots);
        memo.set(key, { template, namesUsed, valuesUsed, betweenBounds: betweenBoundsOf(template) });
        if (memo.size > EXPRESSION_MEMO_SIZE) memo.delete(memo.keys().next().value as string);
      }
      return result;
    };
  }
}

/**
 * Expressions in which a parse reads the values themselves, not only their types: attribute_type
 * checks its type name. BETWEEN's check of its bounds' order is made on each hit instead
 * ({@link boundsInOrder}), so that a rate limit's `#tat BETWEEN :now AND :limit`, with new values
 * on every call, is parsed once.
 */
const readsValues = /attribute_type/i;

/** The value slots of every BETWEEN in a template whose two bounds are values (not paths). */
function betweenBoundsOf(template: unknown): [string, string][] {
  const bounds: [string, string][] = [];
  const visit = (node: unknown) => {
    if (node === null || typeof node !== 'object' || node instanceof ValueSlot) return;
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    const { type, args } = node as { type?: unknown; args?: unknown[] };
    if (type === 'between' && args?.[1] instanceof ValueSlot && args[2] instanceof ValueSlot) {
      bounds.push([args[1].name, args[2].name]);
    }
    for (const value of Object.values(node)) visit(value);
  };
  visit(template);
  return bounds;
}

/** dynalite's own check of a BETWEEN, `compare('GT', lower, upper)` refuses, with this call's values. */
function boundsInOrder(
  bounds: [string, string][],
  values: Record<string, unknown>,
  context: ParseContext,
): boolean {
  if (bounds.length === 0) return true;
  if (!context.compare) return false;
  return bounds.every(([lower, upper]) => !context.compare!('GT', values[lower], values[upper]));
}

function memoKey(expression: string, context: ParseContext): string {
  const values = context.attrVals ?? {};
  const valuesPart = readsValues.test(expression)
    ? JSON.stringify(values)
    : Object.entries(values)
        .map(([name, value]) => `${name}:${Object.keys(value ?? {}).join('+')}`)
        .join(',');
  return JSON.stringify([expression, context.isKeyCondition === true, context.attrNames ?? null, valuesPart]);
}

/** A copy of a parse with each of the request's values (by identity) replaced by its slot. */
function toTemplate(node: unknown, slots: Map<unknown, string>): unknown {
  if (node === null || typeof node !== 'object') return node;
  const slot = slots.get(node);
  if (slot !== undefined) return new ValueSlot(slot);
  if (Array.isArray(node)) return node.map((item) => toTemplate(item, slots));
  // The parsers' own maps have no prototype; a copy keeps that.
  const copy = Object.create(Object.getPrototypeOf(node)) as Record<string, unknown>;
  for (const [key, value] of Object.entries(node)) copy[key] = toTemplate(value, slots);
  return copy;
}

/** A fresh parse from a template, with this request's values in its slots. */
function fromTemplate(node: unknown, values: Record<string, unknown>): unknown {
  if (node === null || typeof node !== 'object') return node;
  if (node instanceof ValueSlot) return values[node.name];
  if (Array.isArray(node)) return node.map((item) => fromTemplate(item, values));
  const copy = Object.create(Object.getPrototypeOf(node)) as Record<string, unknown>;
  for (const [key, value] of Object.entries(node)) copy[key] = fromTemplate(value, values);
  return copy;
}
