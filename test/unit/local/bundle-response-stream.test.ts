/**
 * How the bundle mode reads a streamed invocation (local/bundles/response-stream.ts): as API Gateway
 * reads a Lambda response stream, the prelude up to eight NUL bytes, then the body.
 */
import { describe, expect, it } from 'vitest';
import type { ResponseSink } from '../../../functions/http/streaming-route';
import { httpIntegrationContentType, streamParser } from '../../../local/bundles/response-stream';

function recorder() {
  const calls: unknown[][] = [];
  const sink: ResponseSink = {
    start: (statusCode, headers) => void calls.push(['start', statusCode, headers]),
    write: (text) => void calls.push(['write', text]),
    end: () => void calls.push(['end']),
  };
  return { calls, sink };
}

const bytes = (text: string) => new TextEncoder().encode(text);

describe('streamParser', () => {
  it('starts with the prelude even when it arrives in pieces, then writes the body', () => {
    // Prepare
    const { calls, sink } = recorder();
    const parser = streamParser(sink);
    const prelude = JSON.stringify({ statusCode: 202, headers: { 'content-type': 'text/event-stream' } });

    // Act
    parser.contentType(httpIntegrationContentType);
    parser.chunk(bytes(prelude.slice(0, 10)));
    parser.chunk(bytes(prelude.slice(10)));
    parser.chunk(new Uint8Array([0, 0, 0, 0]));
    parser.chunk(Uint8Array.from([0, 0, 0, 0, ...bytes('data: 1\n\n')]));
    parser.chunk(bytes('data: 2\n\n'));
    parser.end();

    // Assess
    expect(calls).toEqual([
      ['start', 202, { 'content-type': 'text/event-stream' }],
      ['write', 'data: 1\n\n'],
      ['write', 'data: 2\n\n'],
      ['end'],
    ]);
  });

  it('keeps a character split between two chunks whole', () => {
    // Prepare
    const { calls, sink } = recorder();
    const parser = streamParser(sink);
    const euro = bytes('€');

    // Act
    parser.chunk(euro.subarray(0, 1));
    parser.chunk(euro.subarray(1));
    parser.end();

    // Assess
    expect(calls).toEqual([['start', 200, {}], ['write', '€'], ['end']]);
  });

  it('answers 200 with no body when the handler ends the stream without writing', () => {
    // Prepare
    const { calls, sink } = recorder();

    // Act
    streamParser(sink).end();

    // Assess
    expect(calls).toEqual([['start', 200, {}], ['end']]);
  });
});
