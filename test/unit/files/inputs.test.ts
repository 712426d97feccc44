import { describe, expect, it } from 'vitest';
import { PayloadTooLargeError, ValidationError } from '../../../core/errors';
import { fileSourceOf, fileSourcesOf } from '../../../core/files/inputs';
import { maxFileBytes } from '../../../core/files/types';

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');

describe('fileSourceOf', () => {
  it('reads {name, base64, type} as bytes', () => {
    // Act
    const source = fileSourceOf(
      { name: 'a.txt', base64: Buffer.from('hi').toString('base64'), type: 'text/plain' },
      'docs[0]',
    );

    // Assess
    expect(source.kind).toBe('bytes');
    if (source.kind === 'bytes')
      expect([source.name, source.type, text(source.bytes)]).toEqual(['a.txt', 'text/plain', 'hi']);
  });

  it('reads {name, url, type} as a URL', () => {
    // Act
    const source = fileSourceOf(
      { name: 'a.pdf', url: 'https://example.com/a.pdf', type: 'application/pdf' },
      'docs[0]',
    );

    // Assess
    expect(source).toEqual({
      kind: 'url',
      url: 'https://example.com/a.pdf',
      name: 'a.pdf',
      type: 'application/pdf',
    });
  });

  it("reads the client library's {type: 'file', data: <data URI>, name, mime}", () => {
    // Act
    const source = fileSourceOf(
      {
        type: 'file',
        data: `data:text/csv;base64,${Buffer.from('a,b').toString('base64')}`,
        name: 't.csv',
        mime: 'text/csv',
      },
      'docs[0]',
    );

    // Assess
    expect(source.kind).toBe('bytes');
    if (source.kind === 'bytes')
      expect([source.name, source.type, text(source.bytes)]).toEqual(['t.csv', 'text/csv', 'a,b']);
  });

  it("reads the client library's {type: 'url', data: <url>, name, mime}", () => {
    // Act
    const source = fileSourceOf(
      { type: 'url', data: 'https://example.com/x', name: 'x', mime: 'text/plain' },
      'docs[0]',
    );

    // Assess
    expect(source).toEqual({ kind: 'url', url: 'https://example.com/x', name: 'x', type: 'text/plain' });
  });

  it('reads a stored file object as stored', () => {
    // Prepare
    const file = {
      id: 'file_1',
      key: 'files/ws/e/file_1/a.txt',
      name: 'a.txt',
      url: 'https://s3/x',
      type: 'text/plain',
      size: 2,
    };

    // Act
    const source = fileSourceOf(file, 'docs[0]');

    // Assess
    expect(source).toEqual({ kind: 'stored', file });
  });

  it('reads a URL string and a data URI string', () => {
    // Act
    const url = fileSourceOf('https://example.com/r.csv', 'files[0]');
    const data = fileSourceOf(`data:image/png;base64,${Buffer.from([1, 2]).toString('base64')}`, 'files[1]');

    // Assess
    expect(url).toEqual({ kind: 'url', url: 'https://example.com/r.csv' });
    expect(data.kind === 'bytes' && data.type).toBe('image/png');
  });

  it.each([
    ['a number', 5, /must be a file object/],
    ['an object with no content', { name: 'a.txt' }, /give base64, url/],
    ['invalid base64', { name: 'a', base64: 'no spaces or !' }, /not valid base64/],
    ['a data field that is no data URI', { type: 'file', data: 'plain', name: 'a' }, /data URI/],
    ['a file URL', { name: 'a', url: 'file:///etc/passwd' }, /http or https/],
    ['a URL that does not parse', { name: 'a', url: 'http://' }, /not a valid URL/],
  ])('refuses %s with a 400 naming the input', (_case, value, message) => {
    // Act
    const attempt = () => fileSourceOf(value, 'docs[2]');

    // Assess
    expect(attempt).toThrow(ValidationError);
    expect(attempt).toThrow(message);
    try {
      attempt();
    } catch (error) {
      expect((error as ValidationError).details?.[0]?.path).toBe('docs[2]');
    }
  });

  it('refuses base64 of more than 20 MB with a 413 before decoding it', () => {
    // Prepare
    const base64 = 'A'.repeat(Math.ceil((maxFileBytes * 4) / 3) + 8);

    // Act
    const attempt = () => fileSourceOf({ name: 'big', base64 }, 'docs[0]');

    // Assess
    expect(attempt).toThrow(PayloadTooLargeError);
    expect(attempt).toThrow(/docs\[0\].*20 MB/);
  });
});

describe('fileSourcesOf', () => {
  it('names each file of a list by its index', () => {
    // Act
    const attempt = () => fileSourcesOf([{ name: 'a', url: 'https://example.com/a' }, 7], 'docs');

    // Assess
    expect(attempt).toThrow(/docs\[1\]/);
  });
});
