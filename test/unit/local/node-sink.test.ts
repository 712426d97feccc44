import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { ResponseSink } from '../../../functions/http/streaming-route';
import { nodeSink } from '../../../local/server';

let server: Server | undefined;

/** A loopback server whose one answer `answer` writes through a node sink; the client's view of it. */
async function served(answer: (sink: ResponseSink, response: ServerResponse) => Promise<void> | void) {
  server = createServer((_request, response) => void answer(nodeSink(response), response));
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return new Promise<{ response: IncomingMessage; body: string }>((resolve, reject) => {
    request({ host: '127.0.0.1', port, path: '/' }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => resolve({ response, body }));
    })
      .on('error', reject)
      .end();
  });
}

afterEach(async () => {
  await new Promise((done) => server?.close(done));
  server = undefined;
});

describe('nodeSink', () => {
  it('sends a JSON answer written in one go with its length', async () => {
    // Act
    const { response, body } = await served((sink) => {
      sink.start(201, { 'content-type': 'application/json', 'x-ratelimit-remaining': '9' });
      sink.write('{"id":');
      sink.write('"exe_1"}');
      sink.end();
    });

    // Assess
    expect(response.statusCode).toBe(201);
    expect(response.headers['content-type']).toBe('application/json');
    expect(response.headers['x-ratelimit-remaining']).toBe('9');
    expect(response.headers['content-length']).toBe(String(Buffer.byteLength('{"id":"exe_1"}')));
    expect(response.headers['transfer-encoding']).toBeUndefined();
    expect(body).toBe('{"id":"exe_1"}');
  });

  it("sends a stream's status and headers at its start, before anything else is written", async () => {
    // Prepare
    let finish: () => void = () => undefined;
    const finished = new Promise<void>((done) => {
      finish = done;
    });
    let headersSentBeforeBody = false;

    // Act
    const answered = served(async (sink, response) => {
      sink.start(200, { 'content-type': 'text/event-stream' });
      await new Promise((resolve) => setTimeout(resolve, 5));
      headersSentBeforeBody = response.headersSent;
      sink.write('data: 1\n\n');
      await finished;
      sink.write('data: 2\n\n');
      sink.end();
    });
    setTimeout(finish, 20);
    const { response, body } = await answered;

    // Assess
    expect(headersSentBeforeBody).toBe(true);
    expect(response.headers['content-type']).toBe('text/event-stream');
    expect(response.headers['transfer-encoding']).toBe('chunked');
    expect(body).toBe('data: 1\n\ndata: 2\n\n');
  });

  it('leaves alone an answer the server already sent when the handler broke after its start', async () => {
    // Act
    const { response, body } = await served((sink, serverResponse) => {
      sink.start(200, { 'content-type': 'application/json' });
      serverResponse.writeHead(500, { 'content-type': 'application/json' });
      serverResponse.end('{"code":"INTERNAL_ERROR"}');
      sink.end();
    });

    // Assess
    expect(response.statusCode).toBe(500);
    expect(body).toBe('{"code":"INTERNAL_ERROR"}');
  });
});
