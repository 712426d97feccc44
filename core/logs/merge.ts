/**
 * The fill loop: reads every shard of the chosen indexes in position order, merges them into one
 * ordered stream, and keeps the summaries that match until the page is full, the data ends, or the
 * read budget is spent. Only an item taken from the front of the merge counts as examined, and it is
 * taken only while every shard that may still hold items has one buffered, so every position before
 * the last examined one has been seen: a page can always resume right after it.
 */
import { comesBefore, isEmptyRange, logPositionOf, positionBounds } from './position';
import type { LogIndex, LogOrder, LogRange, LogSummary, LogSummaryPage } from './types';

/** The part of the log's port the fill loop reads. */
export interface LogIndexReader {
  readonly shardCount: number;
  queryLogSummaries(range: LogRange): Promise<LogSummaryPage>;
}

export interface FillOptions {
  indexes: LogIndex[];
  order: LogOrder;
  startDate?: string;
  endDate?: string;
  /** Ascending reads stop here: entries logged later may still be on their way (core/logs/service.ts). */
  watermark?: string;
  /** Exclusive: the position the previous page stopped at. */
  after?: string;
  limit: number;
  matches: (summary: LogSummary) => boolean;
  /** Items one page may read in all; past it the page ends early with a cursor. */
  readBudgetInItems: number;
  /** Whether filters beyond the index drop items, so shards are read in larger batches from the start. */
  selective: boolean;
}

export interface FillResult {
  matches: LogSummary[];
  /** Where the next page starts (exclusive); absent when no further match exists. */
  nextAfter?: string;
  /** The last position examined (or the one the page started after): where a poll resumes. */
  lastExamined?: string;
  itemsRead: number;
  /** The page ended because the read budget was spent, not because it was full or the data ended. */
  budgetSpent: boolean;
}

/** Items one read of one shard may ask for: DynamoDB returns at most 1 MB a read anyway. */
const maxBatchInItems = 1_000;

class ShardStream {
  private buffer: LogSummary[] = [];
  private next = 0;
  private after: string | undefined;
  exhausted = false;

  constructor(
    private readonly index: LogIndex,
    private readonly shard: number,
    private batchInItems: number,
    private readonly options: FillOptions,
  ) {
    this.after = options.after;
  }

  get head(): LogSummary | undefined {
    return this.buffer[this.next];
  }

  get isEmpty(): boolean {
    return this.next >= this.buffer.length;
  }

  take(): LogSummary {
    return this.buffer[this.next++] as LogSummary;
  }

  /** Reads the next batch; answers the items it cost. */
  async refill(reader: LogIndexReader, allowanceInItems: number): Promise<number> {
    const bounds = positionBounds({ ...this.options, after: this.after });
    if (isEmptyRange(bounds)) {
      this.exhausted = true;
      return 0;
    }
    const range: LogRange = {
      index: this.index,
      shard: this.shard,
      order: this.options.order,
      ...bounds,
      limit: Math.max(1, Math.min(this.batchInItems, allowanceInItems)),
    };
    const page = await reader.queryLogSummaries(range);
    this.buffer = page.summaries;
    this.next = 0;
    this.after = page.lastPosition ?? this.after;
    this.exhausted = page.exhausted;
    this.batchInItems = Math.min(this.batchInItems * 2, maxBatchInItems);
    return page.itemsRead;
  }
}

function firstBatchInItems(options: FillOptions, streamCount: number): number {
  // Unfiltered, each shard holds about its share of the page; a margin saves most second reads.
  const perStream = (options.limit + 1) / streamCount;
  const wanted = options.selective ? perStream * 4 : perStream * 1.25;
  return Math.min(maxBatchInItems, Math.ceil(wanted) + 4);
}

export async function fillPage(reader: LogIndexReader, options: FillOptions): Promise<FillResult> {
  const streamCount = options.indexes.length * reader.shardCount;
  const batch = firstBatchInItems(options, streamCount);
  const streams = options.indexes.flatMap((index) =>
    Array.from({ length: reader.shardCount }, (_, shard) => new ShardStream(index, shard, batch, options)),
  );
  const found: LogSummary[] = [];
  let itemsRead = 0;
  let lastExamined = options.after;
  let lastReturned: string | undefined;
  for (;;) {
    const needing = streams.filter((stream) => stream.isEmpty && !stream.exhausted);
    if (needing.length > 0) {
      const left = options.readBudgetInItems - itemsRead;
      if (left <= 0)
        return { matches: found, nextAfter: lastExamined, lastExamined, itemsRead, budgetSpent: true };
      const allowance = Math.max(1, Math.floor(left / needing.length));
      const costs = await Promise.all(needing.map((stream) => stream.refill(reader, allowance)));
      itemsRead += costs.reduce((sum, cost) => sum + cost, 0);
      continue;
    }
    const front = frontOf(streams, options.order);
    if (!front) return { matches: found, lastExamined, itemsRead, budgetSpent: false };
    const summary = front.take();
    const position = logPositionOf(summary);
    if (!options.matches(summary)) {
      lastExamined = position;
      continue;
    }
    if (found.length === options.limit) {
      // One match past a full page proves there is a next page; it starts after the page's last.
      return {
        matches: found,
        nextAfter: lastReturned,
        lastExamined: lastReturned,
        itemsRead,
        budgetSpent: false,
      };
    }
    found.push(summary);
    lastExamined = lastReturned = position;
  }
}

function frontOf(streams: ShardStream[], order: LogOrder): ShardStream | undefined {
  let front: ShardStream | undefined;
  for (const stream of streams) {
    const head = stream.head;
    if (!head) continue;
    const frontHead = front?.head;
    if (!frontHead || comesBefore(logPositionOf(head), logPositionOf(frontHead), order)) front = stream;
  }
  return front;
}
