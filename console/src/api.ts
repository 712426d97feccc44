/**
 * The service's public API as the console calls it: same origin, the signed-in credential on every
 * request, and the service's own error message when it refuses.
 */
import { credentialHeaders } from './session';

/** An answer that is not 2xx: `message` is the service's `error`, `code` its `code`. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    readonly details: { path: string; message: string }[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Called on a 401 of a signed-in request: the key was revoked or the token expired. */
let onUnauthorized: (error: ApiError) => void = () => undefined;
export function whenUnauthorized(handler: (error: ApiError) => void): void {
  onUnauthorized = handler;
}

export type Query = Record<string, string | number | boolean | undefined>;

export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query))
    if (value !== undefined && value !== '') params.set(name, String(value));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

export async function call<T>(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = credentialHeaders(),
): Promise<T> {
  let answer: Response;
  try {
    answer = await fetch(path, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (cause) {
    throw new ApiError(
      'The service cannot be reached: check your connection and try again.',
      0,
      'NETWORK',
      [],
      {
        cause,
      },
    );
  }
  const text = await answer.text();
  const parsed = parseJson(text);
  if (!answer.ok) {
    const error = new ApiError(
      typeof parsed?.error === 'string' ? parsed.error : `The service answered ${answer.status}`,
      answer.status,
      typeof parsed?.code === 'string' ? parsed.code : 'HTTP_ERROR',
      Array.isArray(parsed?.details) ? parsed.details : [],
    );
    if (answer.status === 401 && 'x-api-key' in headers) onUnauthorized(error);
    if (answer.status === 401 && 'authorization' in headers) onUnauthorized(error);
    // A failed run answers its result too: the caller may show it.
    if (answer.status === 500 && parsed?.success === false) return parsed as T;
    throw error;
  }
  return parsed as T;
}

// biome-ignore lint/suspicious/noExplicitAny: an answer's shape is the caller's to state
function parseJson(text: string): any {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export const get = <T>(path: string, query?: Query) => call<T>('GET', withQuery(path, query));
export const post = <T>(path: string, body?: unknown) => call<T>('POST', path, body ?? {});
export const put = <T>(path: string, body: unknown) => call<T>('PUT', path, body);
export const del = <T>(path: string) => call<T>('DELETE', path);

/** `{data: …}` answers, unwrapped. */
export async function getData<T>(path: string, query?: Query): Promise<T> {
  return (await get<{ data: T }>(path, query)).data;
}

/** Path segments are encoded: ids and names come from the service or the user. */
export function pathOf(strings: TemplateStringsArray, ...values: string[]): string {
  return strings.reduce(
    (path, part, index) => path + part + (index < values.length ? encodeURIComponent(values[index]) : ''),
    '',
  );
}
