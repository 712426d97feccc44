import { describe, expect, it } from 'vitest';
import { giveBackExpired, type LeasedToken, TokenLeases } from '../../../core/limits/token-leases';

const rate = { requestsPerMinute: 600, maxBurst: 1000 };
const t0 = Date.parse('2026-11-28T12:00:00.000Z');

function tokenAt(expiresAtInMs: number, chargeUsd = 0.001): LeasedToken {
  return { tatInMs: t0, periodCostUsd: 0, chargeUsd, ownerKey: 'user#u1', period: '2026-11', expiresAtInMs };
}

/** Leases that have seen the bucket at `t0` (full) and `draws` requests in the last second. */
function leasesWith(draws: number, maxTokens = 16) {
  const leases = new TokenLeases({ maxTokens, lifetimeInMs: 1000 });
  for (let index = 0; index < draws; index++) leases.draw('b', t0);
  leases.settle('b', 0, t0);
  return leases;
}

describe('TokenLeases', () => {
  it('takes nothing ahead for a bucket this process has not seen yet', () => {
    // Prepare
    const leases = new TokenLeases({ maxTokens: 16, lifetimeInMs: 1000 });
    for (let index = 0; index < 10; index++) leases.draw('b', t0);

    // Act
    const extra = leases.reserve('b', rate, t0);

    // Assess
    expect(extra).toBe(0);
  });

  it('takes ahead one token fewer than the draws of the last lifetime', () => {
    // Prepare
    const leases = leasesWith(4);

    // Act
    const extra = leases.reserve('b', rate, t0);

    // Assess
    expect(extra).toBe(3);
  });

  it('forgets draws older than the lifetime', () => {
    // Prepare
    const leases = leasesWith(4);

    // Act
    leases.draw('b', t0 + 1_500);
    const extra = leases.reserve('b', rate, t0 + 1_500);

    // Assess
    expect(extra).toBe(0);
  });

  it('holds at most maxTokens, counting tokens in flight', () => {
    // Prepare
    const leases = leasesWith(40, 8);

    // Act
    const first = leases.reserve('b', rate, t0);
    const second = leases.reserve('b', rate, t0);

    // Assess
    expect([first, second]).toEqual([8, 0]);
  });

  it('takes ahead at most a quarter of what the bucket held when last seen', () => {
    // Prepare
    const leases = leasesWith(40);
    // 990 of 1000 tokens taken: 10 left.
    leases.settle('b', 0, t0 + 990 * 100);

    // Act
    const extra = leases.reserve('b', rate, t0);

    // Assess
    expect(extra).toBe(2);
  });

  it('hands out granted tokens in order, and none after they expire', () => {
    // Prepare
    const leases = leasesWith(2);
    const extra = leases.reserve('b', rate, t0);
    leases.settle('b', extra, t0, [
      { ...tokenAt(t0 + 1000), tatInMs: 1 },
      { ...tokenAt(t0 + 1000), tatInMs: 2 },
    ]);

    // Act
    const first = leases.draw('b', t0 + 10);
    const late = leases.draw('b', t0 + 1000);

    // Assess
    expect(first?.tatInMs).toBe(1);
    expect(late).toBeUndefined();
  });

  it('counts the charge of tokens not used yet as outstanding until a sweep gives it back', () => {
    // Prepare
    const leases = leasesWith(3);
    leases.settle('b', 0, t0, [
      tokenAt(t0 + 1000),
      tokenAt(t0 + 1000),
      { ...tokenAt(t0 + 1000), period: '2026-12' },
    ]);
    leases.draw('b', t0 + 10);

    // Act
    const live = leases.outstandingUsd('user#u1', '2026-11');
    leases.draw('b', t0 + 1500);
    const expired = leases.outstandingUsd('user#u1', '2026-11');
    const swept = leases.sweep(t0 + 2000);
    const after = leases.outstandingUsd('user#u1', '2026-11');

    // Assess
    expect([live, expired]).toEqual([0.001, 0.001]);
    expect(swept).toEqual([
      { ownerKey: 'user#u1', period: '2026-11', usd: 0.001 },
      { ownerKey: 'user#u1', period: '2026-12', usd: 0.001 },
    ]);
    expect(after).toBe(0);
  });

  it("drops an owner's tokens at once when the owner changes, and gives their charges back", () => {
    // Prepare
    const leases = leasesWith(3);
    leases.settle('b', 0, t0, [tokenAt(t0 + 1000), tokenAt(t0 + 1000)]);
    leases.settle('other', 0, t0, [{ ...tokenAt(t0 + 1000), ownerKey: 'user#u2' }]);

    // Act
    leases.forgetOwner('user#u1');

    // Assess
    expect(leases.draw('b', t0 + 10)).toBeUndefined();
    expect(leases.draw('other', t0 + 10)?.ownerKey).toBe('user#u2');
    expect(leases.sweep(t0 + 10)).toEqual([{ ownerKey: 'user#u1', period: '2026-11', usd: 0.002 }]);
  });

  it('forgets a bucket no request drew from for a lifetime', () => {
    // Prepare
    const leases = leasesWith(4);

    // Act
    leases.sweep(t0 + 1000);
    leases.draw('b', t0 + 1000);
    leases.draw('b', t0 + 1000);
    const extra = leases.reserve('b', rate, t0 + 1000);

    // Assess: it has to see the bucket again before it takes ahead
    expect(extra).toBe(0);
  });

  it('gives back nothing for expired tokens that cost nothing', () => {
    // Prepare
    const leases = leasesWith(3);
    leases.settle('b', 0, t0, [tokenAt(t0 + 1000, 0)]);

    // Act
    const swept = leases.sweep(t0 + 2000);

    // Assess
    expect(swept).toEqual([]);
  });

  it('sweeps expired tokens into refunds without a draw, and keeps a refund given back for later', () => {
    // Prepare
    const leases = leasesWith(3);
    leases.settle('b', 0, t0, [tokenAt(t0 + 1000, 0.003)]);

    // Act
    const swept = leases.sweep(t0 + 1000);
    leases.addRefund(swept[0]);

    // Assess
    expect(swept).toEqual([{ ownerKey: 'user#u1', period: '2026-11', usd: 0.003 }]);
    expect(leases.sweep(t0 + 1000)).toEqual(swept);
  });
});

describe('giveBackExpired', () => {
  it('writes the charges of expired tokens back to the store, negated, and nothing when none is due', async () => {
    // Prepare
    const leases = leasesWith(3);
    leases.settle('b', 0, t0, [tokenAt(t0 + 1000, 0.003)]);
    const charges: [string, string, number][] = [];
    const store = {
      charge: async (ownerKey: string, period: string, usd: number) => {
        charges.push([ownerKey, period, usd]);
        return { tatInMs: {}, periodCostUsd: 0 };
      },
    };
    let storesMade = 0;
    const storeOf = () => {
      storesMade++;
      return store;
    };

    // Act
    await giveBackExpired(leases, storeOf, t0 + 500);
    await giveBackExpired(leases, storeOf, t0 + 1000);

    // Assess
    expect(charges).toEqual([['user#u1', '2026-11', -0.003]]);
    expect(storesMade).toBe(1);
    expect(leases.outstandingUsd('user#u1', '2026-11')).toBe(0);
  });

  it('keeps a refund the store refused for the next sweep, still left out of the cost shown', async () => {
    // Prepare
    const leases = leasesWith(3);
    leases.settle('b', 0, t0, [tokenAt(t0 + 1000, 0.003)]);
    const unreachable = () => {
      throw new Error('Environment variable LIMITS_TABLE is not set');
    };

    // Act
    await giveBackExpired(leases, unreachable, t0 + 1000);

    // Assess
    expect(leases.outstandingUsd('user#u1', '2026-11')).toBe(0.003);
    expect(leases.sweep(t0 + 2000)).toEqual([{ ownerKey: 'user#u1', period: '2026-11', usd: 0.003 }]);
  });
});
