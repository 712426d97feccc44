/**
 * Port: outbound HTTP, for every part of the service that calls out (blocks, the sandbox's fetch,
 * file URLs, notification deliveries). One implementation in production: the guarded client
 * (adapters/http/guarded-client.ts).
 */

export interface HttpRequest {
  url: string;
  method: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  timeoutInMs: number;
  maxResponseBytes: number;
  /** Aborted when the run no longer needs the answer. */
  signal?: AbortSignal;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

/**
 * Port: outbound HTTP. The production implementation is the guarded client: it
 * refuses private, loopback, link-local, CGNAT, multicast and metadata addresses in every
 * encoding, pins the connection to the checked address, and caps time and size.
 */
export interface HttpClient {
  request(request: HttpRequest): Promise<HttpResponse>;
  /**
   * The same request, answered once the headers arrive, the body read as it comes (a model's
   * event stream); the time-out and size cap hold for the whole body. A client without it is read whole.
   */
  open?(request: HttpRequest): Promise<OpenHttpResponse>;
  /**
   * Why a request to this URL would be refused before anything is resolved (a loopback or private
   * address, a scheme, credentials), or undefined when it may be sent: lets a subscription be
   * refused when it is made rather than at each of its deliveries.
   */
  refusalOf?(url: string): string | undefined;
}

export interface OpenHttpResponse {
  status: number;
  headers: Record<string, string>;
  /** Read it to its end or stop early (`return`); either releases the connection. */
  body: AsyncIterable<Uint8Array>;
}
