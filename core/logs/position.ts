/**
 * Where an entry sits in the log: `<loggedAt>#<logId>`. The time is fixed-width ISO 8601 (UTC), so
 * text order is time order, and the id makes every position unique. It is the sort key of every
 * time-ordered index and what a cursor remembers.
 */
import type { LogOrder, PositionBound } from './types';

export function logPositionOf(entry: { loggedAt: string; id: string }): string {
  return `${entry.loggedAt}#${entry.id}`;
}

/** Above every position logged at `time` or earlier: ids never contain `~`. */
function endOf(time: string): string {
  return `${time}#~`;
}

/**
 * The position bounds of a read: the date range (inclusive), the watermark of an ascending read,
 * and, exclusive, the position a cursor or an earlier read of the same shard stopped at.
 */
export function positionBounds(options: {
  order: LogOrder;
  startDate?: string;
  endDate?: string;
  /** Nothing logged after this time is read. */
  watermark?: string;
  after?: string;
}): { lower?: PositionBound; upper?: PositionBound } {
  let lower: PositionBound | undefined = options.startDate
    ? { position: options.startDate, inclusive: true }
    : undefined;
  const ends = [options.endDate, options.watermark].filter((time): time is string => time !== undefined);
  let upper: PositionBound | undefined = ends.length
    ? { position: endOf(ends.sort()[0] as string), inclusive: true }
    : undefined;
  if (options.after !== undefined) {
    const after = { position: options.after, inclusive: false };
    if (options.order === 'asc') lower = tighterLower(lower, after);
    else upper = tighterUpper(upper, after);
  }
  return { lower, upper };
}

function tighterLower(a: PositionBound | undefined, b: PositionBound): PositionBound {
  if (!a || b.position > a.position || (b.position === a.position && !b.inclusive)) return b;
  return a;
}

function tighterUpper(a: PositionBound | undefined, b: PositionBound): PositionBound {
  if (!a || b.position < a.position || (b.position === a.position && !b.inclusive)) return b;
  return a;
}

/** Whether the bounds leave no position at all (a cursor past the end of the date range). */
export function isEmptyRange(bounds: { lower?: PositionBound; upper?: PositionBound }): boolean {
  const { lower, upper } = bounds;
  if (!lower || !upper) return false;
  if (lower.position > upper.position) return true;
  return lower.position === upper.position && !(lower.inclusive && upper.inclusive);
}

/** Whether position `a` comes before `b` in the given order. */
export function comesBefore(a: string, b: string, order: LogOrder): boolean {
  return order === 'asc' ? a < b : a > b;
}
