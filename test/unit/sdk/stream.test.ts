/** Reading server-sent events from bytes as they arrive, however the network splits them. */
import { describe, expect, it } from 'vitest';
import { eventsOf, type StreamEvent } from '../../../sdk/src/stream';

async function* pieces(...parts: Array<string | Uint8Array>): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield typeof part === 'string' ? new TextEncoder().encode(part) : part;
}

async function all(source: AsyncIterable<Uint8Array>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of eventsOf(source)) events.push(event);
  return events;
}

describe('eventsOf', () => {
  it('parses frames split anywhere, a multi-byte character included', async () => {
    // Prepare: "é" is two bytes, sent in two pieces
    const text =
      'data: {"blockId":"b1","chunk":"caf\u00e9"}\n\ndata: {"event":"done","success":true,"output":{},"metadata":{"duration":3}}\n\ndata: [DONE]\n\n';
    const bytes = new TextEncoder().encode(text);
    const split = text.indexOf('\u00e9') + 1;

    // Act
    const events = await all(pieces(bytes.subarray(0, 7), bytes.subarray(7, split), bytes.subarray(split)));

    // Assess
    expect(events).toEqual([
      { event: 'chunk', blockId: 'b1', chunk: 'caf\u00e9' },
      { event: 'done', success: true, output: {}, metadata: { duration: 3 } },
      { event: 'end' },
    ]);
  });

  it('takes CRLF line ends, comments, data over several lines, and a last frame without a blank line', async () => {
    // Act
    const events = await all(
      pieces(
        ': keep-alive\r\n\r\n',
        'data: {"event":"error",\r\ndata: "error":"boom"}\r\n\r\n',
        'data: [DONE]',
      ),
    );

    // Assess
    expect(events).toEqual([{ event: 'error', error: 'boom' }, { event: 'end' }]);
  });

  it('skips frames of a kind it does not know', async () => {
    // Act
    const events = await all(pieces('data: {"event":"progress","percent":50}\n\n', 'data: [DONE]\n\n'));

    // Assess
    expect(events).toEqual([{ event: 'end' }]);
  });

  it('raises INVALID_RESPONSE for a frame that is not JSON', async () => {
    // Act
    const error = await all(pieces('data: <html>\n\n')).catch((caught: unknown) => caught);

    // Assess
    expect(error).toMatchObject({ code: 'INVALID_RESPONSE' });
    expect((error as Error).message).toContain('<html>');
  });
});
