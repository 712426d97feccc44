import { describe, expect, it } from 'vitest';
import { isEmptyRange, logPositionOf, positionBounds } from '../../../core/logs/position';

const t1 = '2026-01-01T00:00:00.000Z';
const t2 = '2026-01-02T00:00:00.000Z';
const t3 = '2026-01-03T00:00:00.000Z';

describe('log positions', () => {
  it('sort by the time an entry was logged, then by its id', () => {
    // Prepare
    const positions = [
      logPositionOf({ loggedAt: t2, id: 'log_a' }),
      logPositionOf({ loggedAt: t1, id: 'log_b' }),
      logPositionOf({ loggedAt: t1, id: 'log_a' }),
    ];

    // Act
    const sorted = [...positions].sort();

    // Assess
    expect(sorted).toEqual([`${t1}#log_a`, `${t1}#log_b`, `${t2}#log_a`]);
  });

  it('bound a read by the dates, inclusive, and by the earlier of endDate and the watermark', () => {
    // Act
    const bounds = positionBounds({ order: 'asc', startDate: t1, endDate: t3, watermark: t2 });

    // Assess
    expect(bounds.lower).toEqual({ position: t1, inclusive: true });
    expect(bounds.upper).toEqual({ position: `${t2}#~`, inclusive: true });
    expect(`${t2}#log_zzz` <= (bounds.upper?.position as string)).toBe(true);
  });

  it('resume after a position: above it ascending, below it descending', () => {
    // Prepare
    const after = `${t2}#log_a`;

    // Act
    const up = positionBounds({ order: 'asc', startDate: t1, after });
    const down = positionBounds({ order: 'desc', endDate: t3, after });

    // Assess
    expect(up.lower).toEqual({ position: after, inclusive: false });
    expect(down.upper).toEqual({ position: after, inclusive: false });
    expect(down.lower).toBeUndefined();
  });

  it('know a range that a cursor has moved past as empty', () => {
    // Act
    const past = positionBounds({ order: 'asc', endDate: t1, after: `${t2}#log_a` });
    const open = positionBounds({ order: 'asc', endDate: t3, after: `${t2}#log_a` });

    // Assess
    expect(isEmptyRange(past)).toBe(true);
    expect(isEmptyRange(open)).toBe(false);
  });
});
