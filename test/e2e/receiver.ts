/**
 * An HTTP server on 127.0.0.1 for one test file, which the service reaches through
 * OUTBOUND_ALLOWLIST: it records every request and answers 200 with a small JSON body.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { until } from '../support/wait';

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly received: readonly Received[];
  /** The `index`th request (0 first) to `path`, once it has arrived. */
  requestTo(path: string, index?: number): Promise<Received>;
}

export function useReceiver(): Receiver {
  const received: Received[] = [];
  let server: Server | undefined;
  let url = '';
  beforeAll(async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({
          method: request.method ?? '',
          path: request.url ?? '/',
          headers: request.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });
  return {
    get url() {
      return url;
    },
    received,
    requestTo: (path, index = 0) =>
      until(() => received.filter((request) => request.path === path)[index], 20_000),
  };
}
