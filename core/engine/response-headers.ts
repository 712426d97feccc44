/**
 * Which headers a response block may put on a run's answer. The answer leaves from the API's own
 * origin, which also serves the console, so a workflow author must not be able to set cookies,
 * loosen CORS or the content security policy, redirect, reframe the body (content type, transfer
 * or content encoding, length) or steer a proxy in front of the service. Only headers that describe
 * or cache the JSON answer are allowed, plus the author's own `x-*` headers minus the ones the
 * service or the proxies in front of it give a meaning to.
 */

/** Allowed by name (lowercase). */
export const allowedResponseHeaders: readonly string[] = [
  'cache-control',
  'content-language',
  'etag',
  'expires',
  'last-modified',
  'pragma',
  'retry-after',
  'vary',
];

/** `x-*` headers the service sets itself or that proxies act on; refused like any unknown header. */
export const reservedCustomHeaderPrefixes: readonly string[] = [
  'x-accel-',
  'x-amz',
  'x-api-key',
  'x-content-type-options',
  'x-execution-id',
  'x-forwarded-',
  'x-frame-options',
  'x-http-method-override',
  'x-ratelimit-',
  'x-real-ip',
  'x-sendfile',
];

/** An HTTP token (RFC 9110 §5.6.2): what a header name may be made of. */
const tokenPattern = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/i;
/** What Node and API Gateway send in a header value: tab, visible ASCII and Latin-1, no CR, LF or NUL. */
const valuePattern = /^[\t\x20-\x7e\x80-\xff]*$/;
const lineBreakPattern = /[\r\n]/;

/** Why `name` may not be a response header, or undefined when it may. */
export function responseHeaderNameProblem(name: string): string | undefined {
  if (lineBreakPattern.test(name))
    return `Response header name ${JSON.stringify(name)} contains a line break`;
  if (!tokenPattern.test(name))
    return `Response header name ${JSON.stringify(name)} is not a valid header name`;
  const lower = name.toLowerCase();
  if (allowedResponseHeaders.includes(lower)) return undefined;
  if (lower.startsWith('x-') && !reservedCustomHeaderPrefixes.some((prefix) => lower.startsWith(prefix)))
    return undefined;
  return `Response header "${name}" is not allowed; allowed are x-* custom headers (except ${reservedCustomHeaderPrefixes.map((prefix) => (prefix.endsWith('-') ? `${prefix}*` : prefix)).join(', ')}) and ${allowedResponseHeaders.join(', ')}`;
}

/** Why `value` may not be the value of response header `name`, or undefined when it may. */
export function responseHeaderValueProblem(name: string, value: string): string | undefined {
  if (lineBreakPattern.test(value)) return `The value of response header "${name}" contains a line break`;
  if (!valuePattern.test(value))
    return `The value of response header "${name}" contains a character a header cannot carry (control characters or beyond Latin-1)`;
  return undefined;
}

/**
 * The headers a response block's `headers` input makes, names lowercased, or why they cannot be
 * sent. Saving refuses what it can see; what a reference brings at run time is checked here. A
 * value that cannot be sent (a line break) is the data's fault, a name off the list the graph's:
 * `inValue` tells them apart.
 */
export function responseHeadersFrom(
  value: unknown,
): { headers: Record<string, string> } | { problem: string; inValue: boolean } {
  if (value === undefined || value === null) return { headers: {} };
  if (typeof value !== 'object' || Array.isArray(value))
    return { problem: 'Response headers must be an object', inValue: false };
  const headers: Record<string, string> = {};
  for (const [name, header] of Object.entries(value)) {
    if (header === undefined || header === null) continue;
    const text = typeof header === 'string' ? header : JSON.stringify(header);
    const nameProblem = responseHeaderNameProblem(name);
    if (nameProblem) return { problem: nameProblem, inValue: false };
    const valueProblem = responseHeaderValueProblem(name, text);
    if (valueProblem) return { problem: valueProblem, inValue: true };
    headers[name.toLowerCase()] = text;
  }
  return { headers };
}
