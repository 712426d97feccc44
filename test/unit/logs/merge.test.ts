import { describe, expect, it } from 'vitest';
import { type LogIndexReader, fillPage } from '../../../core/logs/merge';
import { logPositionOf } from '../../../core/logs/position';
import type { LogRange, LogSummary, LogSummaryPage } from '../../../core/logs/types';

/** An in-memory log of `shardCount` shards, read the way the DynamoDB adapter reads its indexes. */
class MemoryIndex implements LogIndexReader {
  readonly reads: LogRange[] = [];
  private readonly shards: LogSummary[][];

  constructor(
    readonly shardCount: number,
    summaries: LogSummary[],
  ) {
    this.shards = Array.from({ length: shardCount }, () => []);
    for (const [i, summary] of summaries.entries()) this.shards[i % shardCount]?.push(summary);
  }

  async queryLogSummaries(range: LogRange): Promise<LogSummaryPage> {
    this.reads.push(range);
    const inRange = (this.shards[range.shard] ?? [])
      .map((summary) => ({ summary, position: logPositionOf(summary) }))
      .filter(({ position }) => {
        const { lower, upper } = range;
        if (lower && (lower.inclusive ? position < lower.position : position <= lower.position)) return false;
        if (upper && (upper.inclusive ? position > upper.position : position >= upper.position)) return false;
        return true;
      })
      .sort((a, b) => (a.position < b.position ? -1 : 1));
    if (range.order === 'desc') inRange.reverse();
    const page = inRange.slice(0, range.limit);
    return {
      summaries: page.map(({ summary }) => summary),
      itemsRead: page.length,
      lastPosition: page.at(-1)?.position,
      exhausted: page.length === inRange.length,
    };
  }

  get itemsRead(): number {
    return this.reads.reduce((sum, read) => sum + read.limit, 0);
  }
}

function summaries(count: number, level: (i: number) => 'info' | 'error' = () => 'info'): LogSummary[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `log_${String(i).padStart(6, '0')}`,
    workspaceId: 'ws_1',
    workflowId: 'wf_1',
    executionId: String(i),
    level: level(i),
    trigger: 'api',
    startedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    endedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    loggedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    totalDurationMs: i,
    costTotal: 0.001,
    models: [],
    files: null,
  }));
}

const everything = () => true;
const options = {
  indexes: [{ by: 'workspace' as const, workspaceId: 'ws_1' }],
  readBudgetInItems: 10_000,
  selective: false,
};

describe('fillPage', () => {
  it('merges the shards into one page in position order, newest first by default', async () => {
    // Prepare
    const reader = new MemoryIndex(8, summaries(300));

    // Act
    const page = await fillPage(reader, { ...options, order: 'desc', limit: 100, matches: everything });

    // Assess
    expect(page.matches.map((summary) => summary.id)).toEqual(
      summaries(300)
        .reverse()
        .slice(0, 100)
        .map((summary) => summary.id),
    );
    expect(page.nextAfter).toBe(logPositionOf(page.matches[99] as LogSummary));
  });

  it('continues after the position it was given, without gaps or repeats, in both orders', async () => {
    // Prepare
    const all = summaries(250);
    const reader = new MemoryIndex(8, all);

    for (const order of ['asc', 'desc'] as const) {
      // Act
      const seen: string[] = [];
      let after: string | undefined;
      do {
        const page = await fillPage(reader, { ...options, order, limit: 37, matches: everything, after });
        seen.push(...page.matches.map((summary) => summary.id));
        after = page.nextAfter;
      } while (after !== undefined);

      // Assess
      const expected = all.map((summary) => summary.id);
      expect(seen).toEqual(order === 'asc' ? expected : expected.reverse());
    }
  });

  it('has no next page when the last match is the last entry', async () => {
    // Prepare
    const reader = new MemoryIndex(4, summaries(100));

    // Act
    const page = await fillPage(reader, { ...options, order: 'asc', limit: 100, matches: everything });

    // Assess
    expect(page.matches).toHaveLength(100);
    expect(page.nextAfter).toBeUndefined();
    expect(page.lastExamined).toBe(logPositionOf(page.matches[99] as LogSummary));
  });

  it('keeps reading past non-matching entries until the page is full', async () => {
    // Prepare: one entry in a hundred matches
    const reader = new MemoryIndex(
      8,
      summaries(5_000, (i) => (i % 100 === 7 ? 'error' : 'info')),
    );

    // Act
    const page = await fillPage(reader, {
      ...options,
      order: 'asc',
      limit: 20,
      selective: true,
      matches: (summary) => summary.level === 'error',
    });

    // Assess
    expect(page.matches).toHaveLength(20);
    expect(page.matches.every((summary) => summary.level === 'error')).toBe(true);
    expect(page.nextAfter).toBe(logPositionOf(page.matches[19] as LogSummary));
  });

  it('ends a page early with a resumable position when its read budget is spent', async () => {
    // Prepare
    const all = summaries(5_000, (i) => (i % 100 === 7 ? 'error' : 'info'));
    const reader = new MemoryIndex(8, all);
    const errors = (summary: LogSummary) => summary.level === 'error';

    // Act: a budget far below what 20 matches need
    const first = await fillPage(reader, {
      ...options,
      readBudgetInItems: 500,
      order: 'asc',
      limit: 20,
      matches: errors,
    });
    const rest = await fillPage(reader, {
      ...options,
      order: 'asc',
      limit: 50,
      matches: errors,
      after: first.nextAfter,
    });

    // Assess: short but resumable, and the next page starts exactly where it stopped
    expect(first.budgetSpent).toBe(true);
    expect(first.matches.length).toBeLessThan(20);
    expect(first.itemsRead).toBeLessThanOrEqual(500 + 8);
    expect(first.nextAfter).toBeDefined();
    const expected = all.filter(errors).map((summary) => summary.id);
    expect([...first.matches, ...rest.matches].map((summary) => summary.id)).toEqual(expected);
  });

  it('reads about a page and a margin for an unfiltered page, whatever the size of the log', async () => {
    // Prepare
    const small = new MemoryIndex(8, summaries(1_000));
    const large = new MemoryIndex(8, summaries(50_000));

    // Act
    await fillPage(small, { ...options, order: 'desc', limit: 100, matches: everything });
    await fillPage(large, { ...options, order: 'desc', limit: 100, matches: everything });

    // Assess
    expect(large.itemsRead).toBe(small.itemsRead);
    expect(large.itemsRead).toBeLessThanOrEqual(200);
  });

  it('stays within the date range and below the watermark', async () => {
    // Prepare
    const all = summaries(100);
    const reader = new MemoryIndex(8, all);

    // Act
    const page = await fillPage(reader, {
      ...options,
      order: 'asc',
      limit: 100,
      matches: everything,
      startDate: all[10]?.loggedAt,
      endDate: all[60]?.loggedAt,
      watermark: all[40]?.loggedAt,
    });

    // Assess
    expect(page.matches.map((summary) => summary.id)).toEqual(all.slice(10, 41).map((summary) => summary.id));
    expect(page.nextAfter).toBeUndefined();
  });

  it('merges several indexes (one per workflow) into one order', async () => {
    // Prepare
    const a = summaries(50).map((summary) => ({ ...summary, workflowId: 'wf_a' }));
    const b = summaries(50).map((summary) => ({ ...summary, id: `${summary.id}b`, workflowId: 'wf_b' }));
    const byWorkflow: Record<string, MemoryIndex> = {
      wf_a: new MemoryIndex(2, a),
      wf_b: new MemoryIndex(2, b),
    };
    const reader: LogIndexReader = {
      shardCount: 2,
      queryLogSummaries: (range) =>
        (byWorkflow[(range.index as { workflowId: string }).workflowId] as MemoryIndex).queryLogSummaries(
          range,
        ),
    };

    // Act
    const page = await fillPage(reader, {
      ...options,
      indexes: [
        { by: 'workflow', workflowId: 'wf_a' },
        { by: 'workflow', workflowId: 'wf_b' },
      ],
      order: 'asc',
      limit: 10,
      matches: everything,
    });

    // Assess
    expect(page.matches.map((summary) => summary.id)).toEqual([
      'log_000000',
      'log_000000b',
      'log_000001',
      'log_000001b',
      'log_000002',
      'log_000002b',
      'log_000003',
      'log_000003b',
      'log_000004',
      'log_000004b',
    ]);
  });
});
