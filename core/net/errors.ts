/**
 * Errors of outbound HTTP. They live in core so that blocks can tell them apart
 * without importing the adapter; their messages are meant for the person who built the workflow.
 */

/** The guard refused the request: the URL, a resolved address or a redirect target is not allowed. */
export class OutboundRequestRefusedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OutboundRequestRefusedError';
  }
}

/** The request was allowed but did not complete: DNS, connection, TLS, time or size limit, redirects. */
export class OutboundRequestFailedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OutboundRequestFailedError';
  }
}
