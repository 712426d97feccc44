/**
 * Source addresses that ran out of failed authentications, remembered in the process until their
 * next token. A blocked address is refused before any key is checked, so it learns nothing from
 * its next guesses; the store is asked only when an authentication fails, never on the way in.
 */
import { BoundedMap } from '../bounded-map';

export class BlockedSources {
  private readonly untilInMs: BoundedMap<string, number>;

  constructor(maxEntries = 10_000) {
    // Oldest first: a flood of addresses evicts the ones blocked longest ago.
    this.untilInMs = new BoundedMap(maxEntries);
  }

  block(source: string, untilInMs: number): void {
    this.untilInMs.set(source, untilInMs);
  }

  /** When the source may try again, or undefined when it is not blocked. */
  blockedUntil(source: string, nowInMs: number): number | undefined {
    const until = this.untilInMs.get(source);
    if (until === undefined) return undefined;
    if (until > nowInMs) return until;
    this.untilInMs.delete(source);
    return undefined;
  }
}
