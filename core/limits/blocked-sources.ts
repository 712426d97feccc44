/**
 * Source addresses that ran out of failed authentications, remembered in the process until their
 * next token. A blocked address is refused before any key is checked, so it learns nothing from
 * its next guesses; the store is asked only when an authentication fails, never on the way in.
 */
export class BlockedSources {
  private readonly untilInMs = new Map<string, number>();

  constructor(private readonly maxEntries = 10_000) {}

  block(source: string, untilInMs: number): void {
    this.untilInMs.delete(source);
    // Oldest first: a flood of addresses evicts the ones blocked longest ago.
    if (this.untilInMs.size >= this.maxEntries) {
      const oldest = this.untilInMs.keys().next().value;
      if (oldest !== undefined) this.untilInMs.delete(oldest);
    }
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
