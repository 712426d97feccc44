/**
 * Reading a JSON request body: its media type, its size and its nesting are checked before any
 * of it reaches a schema or the engine, so bad input is a 4xx and never a stack overflow.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { bodyBytesOf } from './raw-body';
import { InvalidJsonError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../../core/errors';
import { maxJsonDepth, nestsDeeperThan } from '../../core/json-depth';

/**
 * 5 MB. API Gateway passes bodies up to 10 MB, but a function is handed the body inside its event,
 * and Lambda refuses events over 6,291,456 bytes (6 MB) before the function runs; 5 MB leaves the
 * rest of the event (headers, twice) and the body's JSON escaping about 1 MB, so any body this
 * limit admits reaches the function in AWS too (docs/operating.md, "AWS limits").
 */
export const maxJsonBodyInBytes = 5 * 1024 * 1024;

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

export function parseJsonBody(event: Pick<APIGatewayProxyEvent, 'body' | 'isBase64Encoded'>): unknown {
  if (event.body === null || event.body === undefined || event.body === '') return {};
  const text = event.isBase64Encoded ? bodyBytesOf(event).toString('utf8') : event.body;
  if (Buffer.byteLength(text) > maxJsonBodyInBytes) {
    throw new PayloadTooLargeError(
      `Request body is larger than ${maxJsonBodyInBytes / 1024 / 1024} MB (${maxJsonBodyInBytes.toLocaleString('en-US')} bytes), the most the service takes`,
    );
  }
  if (nestsDeeperThan(text, maxJsonDepth)) {
    throw new InvalidJsonError(`Request body is nested deeper than ${maxJsonDepth} levels`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InvalidJsonError(`Request body is not valid JSON: ${(error as Error).message}`);
  }
}
