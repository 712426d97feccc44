import { describe, expect, it } from 'vitest';
import { fetchThrough } from '../../../adapters/http/fetch';
import type { HttpClient, HttpRequest } from '../../../core/net/http';

const limits = { timeoutInMs: 1_000, maxResponseBytes: 1_000 };
const encode = (value: string) => new TextEncoder().encode(value);

/** A client whose body yields `pieces`, the second only once `gate` has settled. */
function openingClient(contentType: string, pieces: string[], gate: Promise<unknown> = Promise.resolve()) {
  const client: HttpClient = {
    request: async () => expect.unreachable('a client that can open is opened'),
    async open(_request: HttpRequest) {
      async function* body() {
        for (const [index, piece] of pieces.entries()) {
          if (index === 1) await gate;
          yield encode(piece);
        }
      }
      return { status: 200, headers: { 'content-type': contentType }, body: body() };
    },
  };
  return client;
}

describe('fetchThrough', () => {
  it('hands an event stream on piece by piece, before the rest has arrived', async () => {
    // Prepare
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const client = openingClient('text/event-stream; charset=utf-8', ['data: 1\n\n', 'data: 2\n\n'], gate);

    // Act
    const response = await fetchThrough(client, limits)('http://models.example/v1/chat/completions');
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    release();
    const second = await reader.read();
    const end = await reader.read();

    // Assess
    expect(new TextDecoder().decode(first.value)).toBe('data: 1\n\n');
    expect(new TextDecoder().decode(second.value)).toBe('data: 2\n\n');
    expect(end.done).toBe(true);
  });

  it('reads any other answer whole before it answers', async () => {
    // Prepare
    const client = openingClient('application/json', ['{"a":', '1}']);

    // Act
    const response = await fetchThrough(client, limits)('http://models.example/v1/chat/completions');

    // Assess
    expect(await response.json()).toEqual({ a: 1 });
  });

  it('uses request for a client that cannot open', async () => {
    // Prepare
    const client: HttpClient = {
      request: async () => ({ status: 201, headers: { 'content-type': 'text/plain' }, body: encode('made') }),
    };

    // Act
    const response = await fetchThrough(client, limits)('http://models.example/v1/things', {
      method: 'POST',
    });

    // Assess
    expect(response.status).toBe(201);
    expect(await response.text()).toBe('made');
  });
});
