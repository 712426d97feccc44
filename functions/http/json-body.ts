/**
 * Reading a JSON request body: its media type, its size and its nesting are checked before any
 * of it reaches a schema or the engine, so bad input is a 4xx and never a stack overflow.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { InvalidJsonError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../../core/errors';

export const maxJsonBodyInBytes = 10 * 1024 * 1024;
/**
 * Deepest nesting of objects and arrays a body may have. A workflow graph needs about ten levels;
 * much deeper input only serves to exhaust the stack of whatever walks it.
 */
export const maxJsonDepth = 100;

/** `application/json` and `application/<anything>+json`, with any parameters (`; charset=utf-8`). */
const jsonMediaType = /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i;

/**
 * A body with no Content-Type is read as JSON: the tools people try an API with (curl with -d
 * sends its own type, but many scripts send none) should not fail over a missing header.
 */
export function requireJsonContentType(contentType: string | undefined): void {
  if (contentType === undefined || contentType.trim() === '') return;
  if (!jsonMediaType.test(contentType.trim())) {
    throw new UnsupportedMediaTypeError(
      `Content-Type ${JSON.stringify(contentType)} is not supported: send the body as application/json`,
    );
  }
}

/** Whether the text nests objects and arrays deeper than `maxDepth`; one pass, no recursion. */
export function nestsDeeperThan(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c)
        index += 1; // backslash: skip the escaped character
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x7b || code === 0x5b) {
      depth += 1;
      if (depth > maxDepth) return true;
    } else if (code === 0x7d || code === 0x5d) depth -= 1;
  }
  return false;
}

export function parseJsonBody(event: Pick<APIGatewayProxyEvent, 'body' | 'isBase64Encoded'>): unknown {
  if (event.body === null || event.body === undefined || event.body === '') return {};
  const text = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  if (Buffer.byteLength(text) > maxJsonBodyInBytes) {
    throw new PayloadTooLargeError(`Request body is larger than ${maxJsonBodyInBytes / 1024 / 1024} MB`);
  }
  if (text.length > maxJsonDepth && nestsDeeperThan(text, maxJsonDepth)) {
    throw new InvalidJsonError(`Request body is nested deeper than ${maxJsonDepth} levels`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InvalidJsonError(`Request body is not valid JSON: ${(error as Error).message}`);
  }
}
