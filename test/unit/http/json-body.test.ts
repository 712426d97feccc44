import { describe, expect, it } from 'vitest';
import { parseJsonBody, requireJsonContentType } from '../../../functions/http/json-body';
import { maxJsonDepth, nestsDeeperThan } from '../../../core/json-depth';

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

describe('nestsDeeperThan', () => {
  it('counts the nesting of objects and arrays', () => {
    expect(nestsDeeperThan('{"a":[{"b":[1]}]}', 4)).toBe(false);
    expect(nestsDeeperThan('{"a":[{"b":[1]}]}', 3)).toBe(true);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(nestsDeeperThan(JSON.stringify({ text: '[[[[{{{{ \\" [[[[' }), 1)).toBe(false);
  });

  it('finds a body nested 5,000 levels deep without recursion', () => {
    expect(nestsDeeperThan(nested(5000), maxJsonDepth)).toBe(true);
  });

  it('ends a string at a quote that follows an escaped backslash', () => {
    expect(nestsDeeperThan('{"a":"\\\\","b":[[1]]}', 2)).toBe(true);
  });

  it('finds a body nested a million levels deep without overflowing the stack', () => {
    expect(nestsDeeperThan('{"a":'.repeat(1_000_000), maxJsonDepth)).toBe(true);
  });
});

describe('parseJsonBody', () => {
  it('reads an empty body as an empty object', () => {
    expect(parseJsonBody({ body: null, isBase64Encoded: false })).toEqual({});
  });

  it('decodes a base64 body', () => {
    const body = Buffer.from('{"a":1}').toString('base64');
    expect(parseJsonBody({ body, isBase64Encoded: true })).toEqual({ a: 1 });
  });

  it('refuses a body over 10 MB with 413', () => {
    const body = JSON.stringify({ a: 'x'.repeat(10 * 1024 * 1024) });
    expect(() => parseJsonBody({ body, isBase64Encoded: false })).toThrow(
      expect.objectContaining({ statusCode: 413 }),
    );
  });

  it('refuses a body just over 5 MB with 413 naming the limit, and reads one of 5,000,000 bytes', () => {
    // Prepare
    const over = JSON.stringify({ a: 'x'.repeat(5 * 1024 * 1024) });
    const within = JSON.stringify({ a: 'x'.repeat(5_000_000 - 8) });

    // Act
    const refused = () => parseJsonBody({ body: over, isBase64Encoded: false });
    const read = parseJsonBody({ body: within, isBase64Encoded: false });

    // Assess
    expect(refused).toThrow(
      expect.objectContaining({ statusCode: 413, message: expect.stringContaining('5,242,880 bytes') }),
    );
    expect(read).toEqual({ a: expect.any(String) });
  });

  it('reads a body nested exactly to the limit', () => {
    expect(parseJsonBody({ body: nested(maxJsonDepth), isBase64Encoded: false })).toBeInstanceOf(Array);
  });

  it('refuses a body nested beyond the limit with 400 INVALID_JSON naming the limit', () => {
    expect(() => parseJsonBody({ body: nested(maxJsonDepth + 1), isBase64Encoded: false })).toThrow(
      expect.objectContaining({
        statusCode: 400,
        code: 'INVALID_JSON',
        message: 'Request body is nested deeper than 100 levels',
      }),
    );
  });

  it('shows the parser message for invalid JSON', () => {
    expect(() => parseJsonBody({ body: '{"a":', isBase64Encoded: false })).toThrow(
      expect.objectContaining({
        statusCode: 400,
        message: expect.stringMatching(/^Request body is not valid JSON: /),
      }),
    );
  });
});

describe('requireJsonContentType', () => {
  it('accepts application/json with parameters, +json types, and no type at all', () => {
    for (const type of [
      'application/json',
      'Application/JSON; charset=utf-8',
      'application/merge-patch+json',
      undefined,
      '',
    ]) {
      expect(() => requireJsonContentType(type)).not.toThrow();
    }
  });

  it('refuses text, XML, form and binary bodies with 415', () => {
    for (const type of [
      'text/plain',
      'application/xml',
      'application/x-www-form-urlencoded',
      'application/octet-stream',
      'application/jsonp',
    ]) {
      expect(() => requireJsonContentType(type)).toThrow(
        expect.objectContaining({ statusCode: 415, code: 'UNSUPPORTED_MEDIA_TYPE' }),
      );
    }
  });
});
