import { describe, expect, it } from 'vitest';
import { REDACTED, redactSecrets } from '../../../core/environment/redact';

describe('redactSecrets', () => {
  it('replaces every occurrence inside strings, at any depth', () => {
    const value = {
      output: 'token sk-live-123 and again sk-live-123',
      spans: [
        { input: { headers: { authorization: 'Bearer sk-live-123' } }, count: 3, ok: true, none: null },
      ],
    };
    expect(redactSecrets(value, ['sk-live-123'])).toEqual({
      output: `token ${REDACTED} and again ${REDACTED}`,
      spans: [
        { input: { headers: { authorization: `Bearer ${REDACTED}` } }, count: 3, ok: true, none: null },
      ],
    });
  });

  it('does not change its input', () => {
    const value = { a: ['secret-value'] };
    redactSecrets(value, ['secret-value']);
    expect(value).toEqual({ a: ['secret-value'] });
  });

  it('ignores secrets shorter than 4 characters, and empty lists', () => {
    expect(redactSecrets({ a: 'abc yes' }, ['abc', 'yes', ''])).toEqual({ a: 'abc yes' });
    const value = { a: 'x' };
    expect(redactSecrets(value, [])).toBe(value);
    expect(redactSecrets('abcd', ['abcd'])).toBe(REDACTED);
  });

  it('replaces a secret that contains another one whole', () => {
    expect(redactSecrets('key=abcd-efgh', ['abcd', 'abcd-efgh'])).toBe(`key=${REDACTED}`);
  });

  it('also catches the JSON-escaped and URL-encoded forms', () => {
    const secret = 'pa"ss/wo rd';
    expect(redactSecrets({ body: JSON.stringify({ p: secret }) }, [secret])).toEqual({
      body: `{"p":"${REDACTED}"}`,
    });
    expect(redactSecrets(`https://x.test/?p=${encodeURIComponent(secret)}`, [secret])).toBe(
      `https://x.test/?p=${REDACTED}`,
    );
  });

  it('redacts object keys and keeps numbers, booleans and null', () => {
    expect(
      redactSecrets({ 'my-secret-key': 1, n: 12345, b: false, z: null }, ['my-secret-key', '12345']),
    ).toEqual({
      [REDACTED]: 1,
      n: 12345,
      b: false,
      z: null,
    });
  });

  it('handles errors, dates and cycles without throwing', () => {
    const cyclic: Record<string, unknown> = { text: 'has hunter22' };
    cyclic.self = cyclic;
    expect(redactSecrets(cyclic, ['hunter22'])).toEqual({ text: `has ${REDACTED}`, self: '[Circular]' });
    expect(redactSecrets(new Error('bad hunter22'), ['hunter22'])).toMatchObject({
      message: `bad ${REDACTED}`,
    });
    expect(redactSecrets({ at: new Date(0) }, ['1970'])).toEqual({ at: `${REDACTED}-01-01T00:00:00.000Z` });
  });

  it('keeps shared (non-cyclic) references', () => {
    const shared = { v: 'hunter22' };
    expect(redactSecrets([shared, shared], ['hunter22'])).toEqual([{ v: REDACTED }, { v: REDACTED }]);
  });
});
