/** Requests sent from a chosen loopback address, which the local service takes as the caller's source address. */
import { request as httpRequest } from 'node:http';

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

export function requestFrom(
  localAddress: string,
  serviceUrl: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: unknown } = {},
): Promise<RawAnswer> {
  // The server listens on 127.0.0.1; `localhost` might resolve to ::1, which no 127.0.0.x can reach.
  const url = new URL(path, serviceUrl.replace('localhost', '127.0.0.1'));
  const hasBody = options.body !== undefined;
  const headers = { ...(hasBody ? { 'content-type': 'application/json' } : {}), ...options.headers };
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(url, { method, headers, localAddress }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: text ? JSON.parse(text) : undefined,
        });
      });
    });
    outgoing.on('error', reject);
    outgoing.end(hasBody ? JSON.stringify(options.body) : undefined);
  });
}
