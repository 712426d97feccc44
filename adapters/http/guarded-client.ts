/**
 * The one way out of the service: an `HttpClient` that resolves DNS itself, refuses
 * the request if any resolved address is not public (core/net/address-policy), then connects only to
 * the addresses it checked. The name stays in the Host header and in TLS (SNI and certificate
 * checks), so pinning changes nothing for the server. Time and response size are capped, redirects
 * are followed only as far as allowed, each target checked again.
 *
 * Every request opens its own connection (no pooled sockets shared between clients with different
 * rules), sends no cookies but the caller's, and drops hop-by-hop headers both ways.
 */
import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import {
  type IncomingMessage,
  type ClientRequest,
  request as httpRequest,
  type RequestOptions,
} from 'node:http';
import { type RequestOptions as HttpsRequestOptions, request as httpsRequest } from 'node:https';
import {
  type AddressPolicyOptions,
  checkIpAddress,
  checkUrl,
  type Host,
  portOf,
  refusalMessage,
} from '../../core/net/address-policy';
import { OutboundAllowlist } from '../../core/net/allowlist';
import { OutboundRequestFailedError, OutboundRequestRefusedError } from '../../core/net/errors';
import type { HttpClient, HttpRequest, HttpResponse, OpenHttpResponse } from '../../core/net/http';

export { OutboundRequestFailedError, OutboundRequestRefusedError } from '../../core/net/errors';

export interface ResolvedAddress {
  address: string;
  family: number;
}

export interface GuardedHttpClientOptions {
  /** Resolves a name to all of its addresses. Default: the system resolver (`dns.lookup`, all addresses). */
  resolve?: (hostname: string) => Promise<ResolvedAddress[]>;
  /** Lets 127.0.0.0/8 and ::1 through. Tests only; production never sets it. */
  allowLoopback?: boolean;
  /** Destinations let through although not public (the wiring passes `OUTBOUND_ALLOWLIST`). Default: none. */
  allowlist?: OutboundAllowlist;
  /** Redirects followed per request (default 0: a 3xx is returned as it is). */
  maxRedirects?: number;
  /** Used when a request has no positive `timeoutInMs` (default 30 s). */
  defaultTimeoutInMs?: number;
  /** Used when a request has no positive `maxResponseBytes` (default 10 MB). */
  defaultMaxResponseBytes?: number;
  /** Sent when the caller sets no User-Agent. */
  userAgent?: string;
  /** Trusted certificates in PEM; replaces the default trust store. Tests only. */
  ca?: string | string[];
}

const defaultTimeoutInMs = 30_000;
const defaultMaxResponseBytes = 10 * 1024 * 1024;
const defaultUserAgent = 'workflow-service';
/** Without an allowlist (`OUTBOUND_ALLOWLIST`, given by the wiring), every private address is refused. */
const noAllowlist = OutboundAllowlist.parse(undefined);
const redirectStatuses = new Set([301, 302, 303, 307, 308]);

/** Meaningful for one connection only; never forwarded (RFC 9110 §7.6.1), plus what the client sets itself. */
const hopByHopHeaders = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);
const ownRequestHeaders = new Set(['host', 'content-length', 'expect']);
/** Not sent to another origin after a redirect. */
const credentialHeaders = new Set(['authorization', 'cookie', 'proxy-authorization']);
/** Describe a body that a redirect turned into a GET drops. */
const bodyHeaders = new Set(['content-type', 'content-encoding', 'content-language', 'content-location']);

function positive(value: number | undefined): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}

/** Lowercased names, hop-by-hop headers and those named in Connection removed. */
function cleanRequestHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  const entries = Object.entries(headers ?? {}).map(([name, value]) => [name.toLowerCase(), String(value)]);
  const connection = entries.find(([name]) => name === 'connection')?.[1] ?? '';
  const named = new Set(
    connection
      .split(',')
      .map((token) => token.trim().toLowerCase())
      .filter(Boolean),
  );
  const clean: Record<string, string> = {};
  for (const [name, value] of entries) {
    if (hopByHopHeaders.has(name) || ownRequestHeaders.has(name) || named.has(name)) continue;
    clean[name] = value;
  }
  return clean;
}

function cleanResponseHeaders(headers: IncomingMessage['headers']): Record<string, string> {
  const connection = typeof headers.connection === 'string' ? headers.connection : '';
  const named = new Set(connection.split(',').map((token) => token.trim().toLowerCase()));
  const clean: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || hopByHopHeaders.has(name) || named.has(name)) continue;
    clean[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return clean;
}

/** What a failure of the connection was, without addresses. */
function describeFailure(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    case 'ETIMEDOUT':
      return 'connection timed out';
    case 'EPIPE':
      return 'connection closed';
  }
  if (
    typeof code === 'string' &&
    (code.includes('CERT') || code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL'))
  ) {
    return `TLS certificate error (${code})`;
  }
  if (typeof code === 'string' && code.startsWith('ERR_INVALID')) {
    return error instanceof Error ? error.message : code;
  }
  return typeof code === 'string' ? code : error instanceof Error ? error.message : String(error);
}

async function systemResolve(hostname: string): Promise<ResolvedAddress[]> {
  const addresses: LookupAddress[] = await dnsLookup(hostname, { all: true, verbatim: true });
  return addresses.map(({ address, family }) => ({ address, family }));
}

interface Hop {
  url: URL;
  host: Host;
  method: string;
  headers: Record<string, string>;
  body?: Uint8Array;
}

/** A deadline shared by every step of one request: DNS, each hop, each body. */
class Deadline {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  /** Rejects with the time-out error when the deadline passes. */
  readonly expired: Promise<never>;

  /** `cancel`: the caller's signal; aborting it ends the request like the deadline, with `error(true)`. */
  constructor(timeoutInMs: number, error: (cancelled: boolean) => Error, cancel?: AbortSignal) {
    const { signal } = this.controller;
    let cancelled = false;
    this.expired = new Promise<never>((_, reject) => {
      signal.addEventListener('abort', () => reject(error(cancelled)), { once: true });
    });
    // Nobody may be listening when it fires; whoever is reports it.
    this.expired.catch(() => {});
    this.timer = setTimeout(() => this.controller.abort(), timeoutInMs);
    if (cancel) {
      const onCancel = () => {
        cancelled = true;
        this.controller.abort();
      };
      if (cancel.aborted) onCancel();
      else cancel.addEventListener('abort', onCancel, { once: true });
      this.removeCancel = () => cancel.removeEventListener('abort', onCancel);
    }
  }

  private removeCancel: () => void = () => {};

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The operation, unless the deadline passes first. */
  race<T>(operation: Promise<T>): Promise<T> {
    return Promise.race([operation, this.expired]);
  }

  clear(): void {
    clearTimeout(this.timer);
    this.removeCancel();
  }
}

/** A hop answered at its headers: a redirect's location, or the response whose body is still to read. */
interface Answered {
  status: number;
  headers: Record<string, string>;
  location?: string;
  incoming?: IncomingMessage;
}

function tooLarge(maxResponseBytes: number): OutboundRequestFailedError {
  return new OutboundRequestFailedError(`Response larger than ${maxResponseBytes} bytes`);
}

/**
 * A response body as it arrives, held to the request's deadline and size cap. Ending, failing or
 * being left early (`return`) releases the connection and the deadline.
 */
async function* bodyOf(
  incoming: IncomingMessage | undefined,
  deadline: Deadline,
  maxResponseBytes: number,
  host: string,
): AsyncGenerator<Uint8Array> {
  if (!incoming) return deadline.clear();
  const chunks = incoming[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let received = 0;
  try {
    for (;;) {
      let next: IteratorResult<Buffer>;
      try {
        next = await deadline.race(chunks.next());
      } catch (error) {
        if (error instanceof OutboundRequestFailedError) throw error;
        // A connection closed before the body was whole reads as "aborted" (ECONNRESET) here.
        const failure = incoming.complete ? describeFailure(error) : 'connection closed';
        throw new OutboundRequestFailedError(`Request to ${host} failed: ${failure}`, { cause: error });
      }
      if (next.done) {
        if (!incoming.complete)
          throw new OutboundRequestFailedError(`Request to ${host} failed: connection closed`);
        return;
      }
      received += next.value.length;
      if (received > maxResponseBytes) throw tooLarge(maxResponseBytes);
      yield new Uint8Array(next.value.buffer, next.value.byteOffset, next.value.length);
    }
  } finally {
    incoming.destroy();
    deadline.clear();
  }
}

export function createGuardedHttpClient(options: GuardedHttpClientOptions = {}): HttpClient {
  const policy: AddressPolicyOptions = {
    allowLoopback: options.allowLoopback === true,
    allowlist: options.allowlist ?? noAllowlist,
  };
  const resolve = options.resolve ?? systemResolve;
  const maxRedirects = Math.max(0, Math.floor(options.maxRedirects ?? 0));
  const userAgent = options.userAgent ?? defaultUserAgent;

  /** The addresses of a hop's host, every one of them checked. */
  async function addressesOf(hop: Hop, deadline: Deadline): Promise<ResolvedAddress[]> {
    const { host } = hop;
    if (host.kind === 'ip') {
      // Already checked with the URL; connect to it as it is.
      return [{ address: host.hostname.replace(/^\[|\]$/g, ''), family: host.address.family }];
    }
    let resolved: ResolvedAddress[];
    try {
      resolved = await deadline.race(resolve(host.hostname));
    } catch (error) {
      if (error instanceof OutboundRequestFailedError) throw error;
      throw new OutboundRequestFailedError(`Could not resolve host ${host.hostname}`, { cause: error });
    }
    if (resolved.length === 0)
      throw new OutboundRequestFailedError(`Could not resolve host ${host.hostname}`);
    const port = portOf(hop.url);
    const viaAdmittedName = policy.allowlist?.admitsName(host.hostname, port) === true;
    for (const { address } of resolved) {
      const verdict = checkIpAddress(address, { ...policy, port, viaAdmittedName });
      // The message names the host and the kind of address, never the address itself.
      if (!verdict.allowed)
        throw new OutboundRequestRefusedError(refusalMessage(host.hostname, verdict, true));
    }
    return resolved;
  }

  /**
   * Sends one hop to the checked addresses and answers once its headers arrive: a redirect with its
   * location (its body dropped), anything else with its body still to read.
   */
  function send(
    hop: Hop,
    addresses: ResolvedAddress[],
    deadline: Deadline,
    maxResponseBytes: number,
    isRedirect: (status: number, headers: IncomingMessage['headers']) => boolean,
  ): Promise<Answered> {
    const { url, host } = hop;
    const hostname = host.hostname.replace(/^\[|\]$/g, '');
    const https = url.protocol === 'https:';
    const headers: Record<string, string> = { ...hop.headers };
    if (!('user-agent' in headers) && userAgent) headers['user-agent'] = userAgent;
    if (hop.body) headers['content-length'] = String(hop.body.byteLength);

    const requestOptions: HttpsRequestOptions = {
      protocol: url.protocol,
      hostname,
      port: url.port === '' ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: hop.method,
      headers,
      // A fresh connection each time: a pooled socket could have been checked under other rules.
      agent: false,
      // The pin: whatever asks for the name gets the addresses that were checked, never a new lookup.
      lookup: ((_name: string, lookupOptions: { all?: boolean; family?: number }, callback: Function) => {
        const family = lookupOptions?.family;
        const matching = addresses.filter((entry) => !family || entry.family === family);
        const candidates = matching.length > 0 ? matching : addresses;
        if (lookupOptions?.all) callback(null, candidates);
        else callback(null, candidates[0].address, candidates[0].family);
      }) as RequestOptions['lookup'],
    };
    if (https) {
      // SNI and the certificate check use the name; SNI must not carry an IP address.
      if (host.kind === 'name') requestOptions.servername = hostname.replace(/\.+$/, '');
      if (options.ca) requestOptions.ca = options.ca;
    }

    return new Promise((resolvePromise, rejectPromise) => {
      let request: ClientRequest | undefined;
      let response: IncomingMessage | undefined;
      let settled = false;
      const fail = (error: Error) => {
        if (settled) return;
        settled = true;
        deadline.signal.removeEventListener('abort', onDeadline);
        response?.destroy();
        request?.destroy();
        rejectPromise(error);
      };
      const done = (value: Answered) => {
        if (settled) return;
        settled = true;
        deadline.signal.removeEventListener('abort', onDeadline);
        resolvePromise(value);
      };

      const onDeadline = () => deadline.expired.catch(fail);
      if (deadline.signal.aborted) {
        onDeadline();
        return;
      }
      deadline.signal.addEventListener('abort', onDeadline, { once: true });

      try {
        request = (https ? httpsRequest : httpRequest)(requestOptions);
      } catch (error) {
        // Invalid header names or values are found when the request is built.
        fail(
          new OutboundRequestFailedError(`Request to ${host.hostname} failed: ${describeFailure(error)}`, {
            cause: error,
          }),
        );
        return;
      }
      request.on('error', (error) =>
        fail(
          new OutboundRequestFailedError(`Request to ${host.hostname} failed: ${describeFailure(error)}`, {
            cause: error,
          }),
        ),
      );
      request.on('response', (incoming) => {
        response = incoming;
        const status = incoming.statusCode ?? 0;
        const responseHeaders = cleanResponseHeaders(incoming.headers);
        if (isRedirect(status, incoming.headers)) {
          incoming.destroy();
          done({ status, headers: responseHeaders, location: incoming.headers.location });
          return;
        }
        const declared = Number(incoming.headers['content-length']);
        if (Number.isFinite(declared) && declared > maxResponseBytes) {
          fail(tooLarge(maxResponseBytes));
          return;
        }
        // Until the body is read, an error would have no listener and end the process.
        incoming.on('error', () => undefined);
        done({ status, headers: responseHeaders, incoming });
      });
      request.end(hop.body ? Buffer.from(hop.body) : undefined);
    });
  }

  /**
   * Follows the request to its last hop and answers at that hop's headers, with the body still to
   * read: reading it to its end, failing or stopping early clears the deadline; a body never read is
   * dropped when the deadline passes.
   */
  async function answer(input: HttpRequest): Promise<OpenHttpResponse> {
    const timeoutInMs =
      positive(input.timeoutInMs) ?? positive(options.defaultTimeoutInMs) ?? defaultTimeoutInMs;
    const maxResponseBytes =
      positive(input.maxResponseBytes) ??
      positive(options.defaultMaxResponseBytes) ??
      defaultMaxResponseBytes;

    const first = checkUrl(input.url, policy);
    if (!first.allowed) throw new OutboundRequestRefusedError(first.message);
    let currentHost = first.host.hostname;
    const deadline = new Deadline(
      timeoutInMs,
      (cancelled) =>
        new OutboundRequestFailedError(
          cancelled
            ? `Request to ${currentHost} was cancelled`
            : `Request to ${currentHost} timed out after ${timeoutInMs} ms`,
        ),
      input.signal,
    );
    const body = typeof input.body === 'string' ? new TextEncoder().encode(input.body) : input.body;
    let hop: Hop = {
      url: first.url,
      host: first.host,
      method: input.method.toUpperCase(),
      headers: cleanRequestHeaders(input.headers),
      body: body && body.byteLength > 0 ? body : undefined,
    };
    const follows = (status: number, headers: IncomingMessage['headers']) =>
      maxRedirects > 0 && redirectStatuses.has(status) && typeof headers.location === 'string';

    try {
      if (deadline.signal.aborted) await deadline.expired;
      for (let redirects = 0; ; redirects += 1) {
        currentHost = hop.host.hostname;
        const addresses = await addressesOf(hop, deadline);
        const response = await send(hop, addresses, deadline, maxResponseBytes, follows);
        if (response.location === undefined) {
          const { incoming } = response;
          deadline.signal.addEventListener('abort', () => incoming?.destroy(), { once: true });
          return {
            status: response.status,
            headers: response.headers,
            body: bodyOf(incoming, deadline, maxResponseBytes, currentHost),
          };
        }
        if (redirects >= maxRedirects) {
          throw new OutboundRequestFailedError(
            `Too many redirects from ${first.host.hostname} (at most ${maxRedirects} followed)`,
          );
        }
        hop = redirected(hop, response.status, response.location);
      }
    } catch (error) {
      deadline.clear();
      throw error;
    }
  }

  return {
    async request(input: HttpRequest): Promise<HttpResponse> {
      const response = await answer(input);
      const chunks: Uint8Array[] = [];
      for await (const chunk of response.body) chunks.push(chunk);
      const whole = Buffer.concat(chunks);
      return {
        status: response.status,
        headers: response.headers,
        body: new Uint8Array(whole.buffer, whole.byteOffset, whole.length),
      };
    },
    open: answer,
    refusalOf(url: string): string | undefined {
      const check = checkUrl(url, policy);
      return check.allowed ? undefined : check.message;
    },
  };

  /** The next hop after a redirect, its target checked like the first URL. */
  function redirected(hop: Hop, status: number, location: string): Hop {
    let target: URL;
    try {
      target = new URL(location, hop.url);
    } catch {
      throw new OutboundRequestFailedError(
        `Request to ${hop.host.hostname} failed: invalid redirect location`,
      );
    }
    const check = checkUrl(target, policy);
    if (!check.allowed) {
      throw new OutboundRequestRefusedError(`${check.message} (redirected from ${hop.host.hostname})`);
    }
    let { method, body } = hop;
    let headers = { ...hop.headers };
    // As fetch does: 303 turns anything but HEAD into GET, 301 and 302 turn POST into GET.
    if (
      (status === 303 && method !== 'GET' && method !== 'HEAD') ||
      ((status === 301 || status === 302) && method === 'POST')
    ) {
      method = 'GET';
      body = undefined;
      headers = Object.fromEntries(Object.entries(headers).filter(([name]) => !bodyHeaders.has(name)));
    }
    if (check.url.origin !== hop.url.origin) {
      headers = Object.fromEntries(Object.entries(headers).filter(([name]) => !credentialHeaders.has(name)));
    }
    return { url: check.url, host: check.host, method, headers, body };
  }
}
