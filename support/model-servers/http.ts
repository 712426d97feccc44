/**
 * The common part of the fake model providers: an HTTP server on 127.0.0.1 (a free port) that
 * records every request and answers from a queue of scripted replies.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  /** Lowercased names. */
  headers: Record<string, string>;
  body: any;
}

/** What the server answers to one request. Every member is optional. */
export interface ScriptedReply {
  /** The text answer (default: a fixed sentence). */
  content?: string;
  /** How a streamed answer is split (default: the content in pieces of a few words). */
  chunks?: string[];
  /** The structured answer, sent when the request asks for one (json_schema or a forced tool). */
  structured?: unknown;
  /** The model the answer names (default: the requested model). */
  model?: string;
  /** Token counts reported in the usage (default: 11 in, 7 out). */
  usage?: { input: number; output: number };
  /** Waits this long before answering (to provoke time-outs). */
  delayMs?: number;
  /** Waits this long between streamed events. */
  chunkDelayMs?: number;
  /** A streamed answer stops after its first text chunk until this settles (to see what arrives meanwhile). */
  holdAfterFirstChunk?: Promise<unknown>;
  /** Answers with this HTTP status and `errorBody` (or a provider-shaped error with `errorMessage`). */
  status?: number;
  errorMessage?: string;
  errorBody?: unknown;
  /** The finish/stop reason to report. */
  finishReason?: string;
  /** Extra response headers (e.g. `retry-after-ms` so that SDK retries come quickly). */
  headers?: Record<string, string>;
}

export interface ModelServer {
  /** Base URL to give the SDK (`baseUrl`). */
  url: string;
  requests: RecordedRequest[];
  /** Queue replies for the next requests, in order; after them, the default reply answers. */
  reply(...replies: ScriptedReply[]): void;
  setDefault(reply: ScriptedReply): void;
  close(): Promise<void>;
}

export type Handler = (
  request: RecordedRequest,
  reply: ScriptedReply,
  response: ServerResponse,
  isClosed: () => boolean,
) => Promise<void>;

export function sleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  response.end(text);
}

/** A text split into pieces of about `size` characters, at spaces where possible. */
export function piecesOf(text: string, size = 6): string[] {
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > size) {
    const space = rest.indexOf(' ', size);
    const cut = space === -1 || space > size * 2 ? size : space;
    pieces.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  if (rest) pieces.push(rest);
  return pieces;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

export async function startModelServer(routePath: string, handler: Handler): Promise<ModelServer> {
  const requests: RecordedRequest[] = [];
  const queue: ScriptedReply[] = [];
  let fallback: ScriptedReply = {};

  const server: Server = createServer(async (request, response) => {
    let closed = false;
    response.on('close', () => {
      closed = true;
    });
    try {
      const text = await readBody(request);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) {
        headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value ?? '');
      }
      const path = (request.url ?? '/').split('?')[0];
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        // Recorded as text.
      }
      const recorded: RecordedRequest = { method: request.method ?? 'GET', path, headers, body };
      requests.push(recorded);
      if (request.method !== 'POST' || path !== routePath) {
        sendJson(response, 404, { error: { message: `No route ${request.method} ${path}` } });
        return;
      }
      const reply = queue.shift() ?? fallback;
      if (reply.delayMs) await sleep(reply.delayMs);
      if (closed) return;
      await handler(recorded, reply, response, () => closed);
    } catch (error) {
      if (!response.headersSent) sendJson(response, 500, { error: { message: String(error) } });
      else response.destroy();
    }
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    reply: (...replies) => {
      queue.push(...replies);
    },
    setDefault: (reply) => {
      fallback = reply;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
