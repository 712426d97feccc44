import { describe, expect, it } from 'vitest';
import { responseHeaderNameProblem, responseHeaderValueProblem } from '../../../core/engine/response-headers';

describe('response header rules', () => {
  it.each(['x-made-by', 'X-Trace', 'cache-control', 'Content-Language', 'etag', 'vary', 'retry-after'])(
    'allows %s',
    (name) => {
      expect(responseHeaderNameProblem(name)).toBeUndefined();
    },
  );

  it.each([
    'set-cookie',
    'location',
    'content-type',
    'content-length',
    'content-encoding',
    'transfer-encoding',
    'access-control-allow-origin',
    'content-security-policy',
    'refresh',
    'link',
    'x-accel-redirect',
    'x-amzn-remapped-content-length',
    'x-forwarded-for',
    'x-ratelimit-limit',
    'x-content-type-options',
  ])('refuses %s, naming it', (name) => {
    expect(responseHeaderNameProblem(name)).toContain(`"${name}" is not allowed`);
  });

  it('refuses names that are not HTTP tokens and values a header cannot carry', () => {
    expect(responseHeaderNameProblem('x-a\nb')).toContain('contains a line break');
    expect(responseHeaderNameProblem('x a')).toContain('not a valid header name');
    expect(responseHeaderValueProblem('x-a', 'one\r\ntwo')).toContain('contains a line break');
    expect(responseHeaderValueProblem('x-a', 'nul\u0000')).toContain('cannot carry');
    expect(responseHeaderValueProblem('x-a', '日本')).toContain('cannot carry');
    expect(responseHeaderValueProblem('x-a', 'café, tab\there')).toBeUndefined();
  });
});
