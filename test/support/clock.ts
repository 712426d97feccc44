/** A clock that moves only when told to, for what keeps things for a time. */
export function fakeClock(startInMs = 1_000_000) {
  let nowInMs = startInMs;
  return {
    nowInMs: () => nowInMs,
    advance(ms: number) {
      nowInMs += ms;
    },
  };
}
