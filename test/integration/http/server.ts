/**
 * A test server on 127.0.0.1 (never any other address) with the routes the guarded client, the api
 * block and sandbox fetch are tested against. It records every request it receives.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  remoteAddress: string | undefined;
  localAddress: string | undefined;
  servername?: string;
}

export interface TestServer {
  /** `http://127.0.0.1:<port>` (or https). */
  origin: string;
  port: number;
  seen: SeenRequest[];
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function json(
  response: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
) {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  response.end(JSON.stringify(value));
}

async function handle(request: IncomingMessage, response: ServerResponse, seen: SeenRequest[]) {
  const body = await readBody(request);
  const socket = request.socket as TLSSocket & { servername?: unknown };
  seen.push({
    method: request.method ?? '',
    url: request.url ?? '',
    headers: request.headers,
    body,
    remoteAddress: socket.remoteAddress,
    localAddress: socket.localAddress,
    servername: typeof socket.servername === 'string' ? socket.servername : undefined,
  });
  const url = new URL(request.url ?? '/', 'http://test.invalid');
  const path = url.pathname;

  if (path === '/json') return json(response, 200, { hello: 'world', list: [1, 2, 3] }, { 'x-answer': '42' });
  if (path === '/text') {
    response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    return response.end('plain text ✓');
  }
  if (path === '/echo') {
    return json(response, 200, {
      method: request.method,
      path,
      query: Object.fromEntries(url.searchParams),
      search: url.search,
      headers: request.headers,
      body,
    });
  }
  if (path.startsWith('/status/')) {
    const status = Number(path.slice('/status/'.length));
    if (url.searchParams.get('json') === '1')
      return json(response, status, { error: 'Something broke', status });
    response.writeHead(status, { 'content-type': 'text/plain' });
    return response.end(status === 204 ? undefined : `status ${status} body`);
  }
  if (path === '/big') {
    // Chunked, no length announced: the cap has to count.
    const size = Number(url.searchParams.get('size') ?? '2000');
    response.writeHead(200, { 'content-type': 'text/plain' });
    const chunk = 'x'.repeat(100);
    for (let sent = 0; sent < size; sent += chunk.length) response.write(chunk);
    return response.end();
  }
  if (path === '/big-declared') {
    const size = Number(url.searchParams.get('size') ?? '2000');
    response.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(size) });
    return response.end('y'.repeat(size));
  }
  if (path === '/hang') return; // never answers
  if (path === '/slow-body') {
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.write('partial');
    return; // never ends
  }
  if (path === '/redirect') {
    const status = Number(url.searchParams.get('status') ?? '302');
    const headers: Record<string, string> = { location: url.searchParams.get('to') ?? '/echo' };
    if (url.searchParams.get('cookie')) headers['set-cookie'] = 'session=from-server; Path=/';
    response.writeHead(status, headers);
    return response.end('redirecting');
  }
  if (path.startsWith('/loop/')) {
    const next = Number(path.slice('/loop/'.length)) + 1;
    response.writeHead(302, { location: `/loop/${next}` });
    return response.end();
  }
  if (path === '/set-cookie') {
    response.writeHead(200, { 'set-cookie': ['a=1; Path=/', 'b=2; Path=/'], 'content-type': 'text/plain' });
    return response.end('cookies set');
  }
  if (path === '/hop-by-hop') {
    response.writeHead(200, {
      'content-type': 'text/plain',
      connection: 'close, x-private-hop',
      'x-private-hop': 'secret',
      'keep-alive': 'timeout=5',
      'x-kept': 'yes',
    });
    return response.end('ok');
  }
  response.writeHead(404, { 'content-type': 'text/plain' });
  response.end('no such route');
}

function listen(server: Server, seen: SeenRequest[], scheme: 'http' | 'https'): Promise<TestServer> {
  const sockets = new Set<import('node:net').Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        origin: `${scheme}://127.0.0.1:${port}`,
        port,
        seen,
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}

export function startTestServer(): Promise<TestServer> {
  const seen: SeenRequest[] = [];
  const server = createServer((request, response) => {
    handle(request, response, seen).catch(() => response.destroy());
  });
  return listen(server, seen, 'http');
}

export interface TestCertificate {
  cert: string;
  key: string;
}

/** A throwaway self-signed certificate for `name`, or undefined when openssl is not installed. */
export function selfSignedCertificate(name: string): TestCertificate | undefined {
  const directory = mkdtempSync(join(tmpdir(), 'guard-tls-'));
  try {
    const key = join(directory, 'key.pem');
    const cert = join(directory, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '2',
        '-subj',
        `/CN=${name}`,
        '-addext',
        `subjectAltName=DNS:${name}`,
      ],
      { stdio: 'ignore' },
    );
    return { cert: readFileSync(cert, 'utf8'), key: readFileSync(key, 'utf8') };
  } catch {
    return undefined;
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

export function startTlsTestServer(certificate: TestCertificate): Promise<TestServer> {
  const seen: SeenRequest[] = [];
  const server = createHttpsServer(certificate, (request, response) => {
    handle(request, response, seen).catch(() => response.destroy());
  });
  return listen(server, seen, 'https');
}

/** A port on 127.0.0.1 that nothing listens on (just released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  const { port } = await listen(server, [], 'http');
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}
