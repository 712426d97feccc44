/** Waiting in tests for something another process or queue does, without sleeping longer than it takes. */

/** Polls `read` every 25 ms until it gives a value (not undefined); throws after `timeoutInMs`. */
export async function until<T>(
  read: () => T | undefined | Promise<T | undefined>,
  timeoutInMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutInMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
