import { describe, expect, it } from 'vitest';
import { BlockedSources } from '../../../core/limits/blocked-sources';

const t0 = Date.parse('2026-11-22T12:00:00.000Z');

describe('BlockedSources', () => {
  it('answers undefined for a source never blocked', () => {
    // Prepare
    const sources = new BlockedSources();

    // Act
    const until = sources.blockedUntil('203.0.113.7', t0);

    // Assess
    expect(until).toBeUndefined();
  });

  it('keeps a source blocked until the time given', () => {
    // Prepare
    const sources = new BlockedSources();
    sources.block('203.0.113.7', t0 + 6000);

    // Act
    const atStart = sources.blockedUntil('203.0.113.7', t0);
    const justBefore = sources.blockedUntil('203.0.113.7', t0 + 5999);

    // Assess
    expect(atStart).toBe(t0 + 6000);
    expect(justBefore).toBe(t0 + 6000);
  });

  it('unblocks a source at the time given', () => {
    // Prepare
    const sources = new BlockedSources();
    sources.block('203.0.113.7', t0 + 6000);

    // Act
    const until = sources.blockedUntil('203.0.113.7', t0 + 6000);

    // Assess
    expect(until).toBeUndefined();
  });

  it('removes the entry of a source once it is unblocked', () => {
    // Prepare
    const sources = new BlockedSources();
    sources.block('203.0.113.7', t0 + 6000);
    sources.blockedUntil('203.0.113.7', t0 + 7000);

    // Act
    const askedEarlierAgain = sources.blockedUntil('203.0.113.7', t0);

    // Assess
    expect(askedEarlierAgain).toBeUndefined();
  });

  it('updates the time when a source is blocked again', () => {
    // Prepare
    const sources = new BlockedSources();
    sources.block('203.0.113.7', t0 + 6000);

    // Act
    sources.block('203.0.113.7', t0 + 60_000);

    // Assess
    expect(sources.blockedUntil('203.0.113.7', t0 + 6000)).toBe(t0 + 60_000);
  });

  it('evicts the oldest entry when maxEntries is reached', () => {
    // Prepare
    const sources = new BlockedSources(2);
    sources.block('first', t0 + 6000);
    sources.block('second', t0 + 6000);

    // Act
    sources.block('third', t0 + 6000);

    // Assess
    expect(sources.blockedUntil('first', t0)).toBeUndefined();
    expect(sources.blockedUntil('second', t0)).toBe(t0 + 6000);
    expect(sources.blockedUntil('third', t0)).toBe(t0 + 6000);
  });

  it('counts a re-blocked source as the newest entry', () => {
    // Prepare
    const sources = new BlockedSources(2);
    sources.block('first', t0 + 6000);
    sources.block('second', t0 + 6000);
    sources.block('first', t0 + 12_000);

    // Act
    sources.block('third', t0 + 6000);

    // Assess
    expect(sources.blockedUntil('first', t0)).toBe(t0 + 12_000);
    expect(sources.blockedUntil('second', t0)).toBeUndefined();
    expect(sources.blockedUntil('third', t0)).toBe(t0 + 6000);
  });
});
