/**
 * Keep-alive comments on event streams. CloudFront, in front of the API in AWS, cuts a response
 * whose origin sends nothing for 30 s (its origin read timeout), and a block (a model call, a wait)
 * can be silent for longer; so a stream with nothing to say for 15 s says `: keep-alive`, a comment
 * frame that clients of server-sent events skip.
 */
import type { ResponseSink } from './streaming-route';

export const keepAliveFrame = ': keep-alive\n\n';

/** Half of CloudFront's 30 s origin read timeout, so one late timer still leaves room. */
export const keepAliveIntervalInMs = 15_000;

/** Whether an answer's headers open an event stream. */
export function opensEventStream(headers: Record<string, string>): boolean {
  const type = Object.entries(headers).find(([name]) => name.toLowerCase() === 'content-type')?.[1];
  return type?.split(';')[0].trim().toLowerCase() === 'text/event-stream';
}

/**
 * The sink, with a keep-alive comment written whenever it has been silent for the interval, from
 * `begin()` until its end. One timer per stream, armed for the next moment the stream would be
 * quiet that long, so frames written in between cost no timer each.
 */
export function keepingAlive(
  sink: ResponseSink,
  intervalInMs = keepAliveIntervalInMs,
): ResponseSink & { begin(): void } {
  let lastWriteAtInMs = 0;
  let timer: NodeJS.Timeout | undefined;
  let ended = false;
  const arm = (delayInMs: number) => {
    timer = setTimeout(tick, delayInMs);
    // A stream left open by a broken handler must not keep the process alive.
    timer.unref?.();
  };
  const tick = () => {
    if (ended) return;
    const quietInMs = Date.now() - lastWriteAtInMs;
    if (quietInMs >= intervalInMs) {
      sink.write(keepAliveFrame);
      lastWriteAtInMs = Date.now();
      return arm(intervalInMs);
    }
    arm(intervalInMs - quietInMs);
  };
  return {
    start: (statusCode, headers) => sink.start(statusCode, headers),
    begin() {
      if (timer || ended) return;
      lastWriteAtInMs = Date.now();
      arm(intervalInMs);
    },
    write(text) {
      lastWriteAtInMs = Date.now();
      sink.write(text);
    },
    end() {
      ended = true;
      clearTimeout(timer);
      sink.end();
    },
  };
}
