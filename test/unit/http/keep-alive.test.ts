import { afterEach, describe, expect, it, vi } from 'vitest';
import { keepAliveFrame, keepingAlive, opensEventStream } from '../../../functions/http/keep-alive';
import type { ResponseSink } from '../../../functions/http/streaming-route';

/** A sink that notes what was written, and when (on the fake clock). */
function recordingSink() {
  const writes: { atInMs: number; text: string }[] = [];
  let ended = false;
  const sink: ResponseSink = {
    start: () => undefined,
    write: (text) => void writes.push({ atInMs: Date.now(), text }),
    end: () => {
      ended = true;
    },
  };
  return { sink, writes, ended: () => ended };
}

describe('keepingAlive', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sends keep-alive comments at most 15 s apart through a block silent for 40 s, then its frames', async () => {
    // Prepare
    vi.useFakeTimers({ now: 0 });
    const { sink, writes } = recordingSink();
    const stream = keepingAlive(sink);
    stream.start(200, { 'content-type': 'text/event-stream' });
    stream.begin();

    // Act
    await vi.advanceTimersByTimeAsync(40_000);
    stream.write('data: {"blockId":"b","chunk":"late"}\n\n');
    stream.write('data: [DONE]\n\n');
    stream.end();
    await vi.advanceTimersByTimeAsync(60_000);

    // Assess
    expect(writes.map((write) => write.text)).toEqual([
      keepAliveFrame,
      keepAliveFrame,
      'data: {"blockId":"b","chunk":"late"}\n\n',
      'data: [DONE]\n\n',
    ]);
    const times = [0, ...writes.map((write) => write.atInMs)];
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeLessThanOrEqual(15_000);
  });

  it('sends no comment while frames keep coming, and one once they stop for 15 s', async () => {
    // Prepare
    vi.useFakeTimers({ now: 0 });
    const { sink, writes } = recordingSink();
    const stream = keepingAlive(sink);
    stream.begin();

    // Act
    for (let second = 0; second < 30; second++) {
      await vi.advanceTimersByTimeAsync(1_000);
      stream.write(`data: ${second}\n\n`);
    }
    await vi.advanceTimersByTimeAsync(15_000);

    // Assess
    expect(writes.filter((write) => write.text === keepAliveFrame).map((write) => write.atInMs)).toEqual([
      45_000,
    ]);
  });

  it('writes nothing after its end', async () => {
    // Prepare
    vi.useFakeTimers({ now: 0 });
    const { sink, writes, ended } = recordingSink();
    const stream = keepingAlive(sink);
    stream.begin();

    // Act
    stream.end();
    await vi.advanceTimersByTimeAsync(60_000);

    // Assess
    expect(writes).toEqual([]);
    expect(ended()).toBe(true);
  });
});

describe('opensEventStream', () => {
  it('tells an event stream from a JSON answer, whatever the header name case and parameters', () => {
    expect(opensEventStream({ 'Content-Type': 'text/event-stream; charset=utf-8' })).toBe(true);
    expect(opensEventStream({ 'content-type': 'application/json' })).toBe(false);
    expect(opensEventStream({})).toBe(false);
  });
});
