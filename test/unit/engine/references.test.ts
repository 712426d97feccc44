import { describe, expect, it } from 'vitest';
import {
  extractReferences,
  interpolateCode,
  interpolateText,
  MissingEnvironmentVariableError,
  type ReferenceScope,
  resolveValue,
} from '../../../core/engine/references';

const apiData = { items: [{ name: 'first', tags: ['a', 'b'] }, { name: 'second' }] };

function scopeOf(overrides: Partial<ReferenceScope> = {}): ReferenceScope {
  return {
    blockNames: new Set(['start', 'shout', 'api']),
    outputs: {
      shout: { result: 'HELLO', count: 3, stdout: '' },
      api: { data: apiData, status: 200 },
    },
    start: { topic: 'hello', age: 42, input: { topic: 'hello', age: 42 } },
    environment: { API_KEY: 'secret-key' },
    ...overrides,
  };
}

describe('references', () => {
  it('gives a value that is exactly one reference the referenced value with its type', () => {
    const scope = scopeOf();

    expect(resolveValue('<start.age>', scope)).toBe(42);
    expect(resolveValue('<api.data>', scope)).toEqual(apiData);
    expect(resolveValue('  <shout.count>\n', scope)).toBe(3);
  });

  it('interpolates references inside text, objects as JSON', () => {
    const scope = scopeOf();

    expect(resolveValue('Topic <start.topic> is <start.age> old', scope)).toBe('Topic hello is 42 old');
    expect(interpolateText('items: <api.data.items[1]>', scope)).toBe('items: {"name":"second"}');
  });

  it('inserts references into code as JSON literals', () => {
    const scope = scopeOf();

    expect(interpolateCode('return <start.topic>.toUpperCase() + <start.age>', scope)).toBe(
      'return "hello".toUpperCase() + 42',
    );
    expect(interpolateCode('const x = <api.data.items[1]>;', scope)).toBe('const x = {"name":"second"};');
    expect(interpolateCode('return <start.missing> ?? 1', scope)).toBe('return undefined ?? 1');
  });

  it('follows indexes and nested paths', () => {
    const scope = scopeOf();

    expect(resolveValue('<api.data.items[0].name>', scope)).toBe('first');
    expect(resolveValue('<api.data.items[0].tags[1]>', scope)).toBe('b');
    expect(resolveValue('<api.data.items.1.name>', scope)).toBe('second');
  });

  it('gives undefined for a missing path, and nothing inside text', () => {
    const scope = scopeOf();

    expect(resolveValue('<api.data.items[5].name>', scope)).toBeUndefined();
    expect(resolveValue('<shout.nothing.deeper>', scope)).toBeUndefined();
    expect(resolveValue('[<shout.nothing>]', scope)).toBe('[]');
  });

  it('reaches only own members, not the prototype', () => {
    expect(resolveValue('<start.constructor>', scopeOf())).toBeUndefined();
    expect(resolveValue('<start.__proto__>', scopeOf())).toBeUndefined();
  });

  it('matches block names case-insensitively', () => {
    expect(resolveValue('<SHOUT.result>', scopeOf())).toBe('HELLO');
  });

  it('replaces environment variables in text, values and code', () => {
    const scope = scopeOf();

    expect(resolveValue('Bearer {{API_KEY}}', scope)).toBe('Bearer secret-key');
    expect(resolveValue('{{ API_KEY }}', scope)).toBe('secret-key');
    expect(interpolateCode('const key = {{API_KEY}};', scope)).toBe('const key = "secret-key";');
  });

  it('fails on an environment variable that is not set', () => {
    expect(() => resolveValue('{{MISSING}}', scopeOf())).toThrow(MissingEnvironmentVariableError);
    expect(() => resolveValue('{{MISSING}}', scopeOf())).toThrow('Environment variable "MISSING" is not set');
  });

  it('leaves environment variables as written when redacting', () => {
    const scope = scopeOf({ redactEnvironment: true });

    expect(resolveValue({ auth: 'Bearer {{API_KEY}}', exact: '{{API_KEY}}' }, scope)).toEqual({
      auth: 'Bearer {{API_KEY}}',
      exact: '{{API_KEY}}',
    });
    expect(interpolateCode('fetch(<start.topic>, {{API_KEY}})', scope)).toBe('fetch("hello", {{API_KEY}})');
  });

  it('leaves comparisons, HTML and unknown names untouched', () => {
    const scope = scopeOf();
    const text = '<div class="a"><b>if a < b && c<d.e> then</b></div> <unknown.path> <br/> <shout>';

    expect(interpolateText('if (a < b && x<y) return', scope)).toBe('if (a < b && x<y) return');
    expect(interpolateText(text, scope)).toBe(
      text.replace('<shout>', JSON.stringify(scopeOf().outputs.shout)),
    );
  });

  it('resolves the loop, parallel and variable roots', () => {
    const scope = scopeOf({
      loop: { index: 2, currentItem: { id: 'c' }, items: ['a', 'b', { id: 'c' }] },
      parallel: { index: 0, currentItem: 'x', items: ['x'] },
      variables: { count: 7 },
    });

    expect(resolveValue('<loop.index>', scope)).toBe(2);
    expect(resolveValue('<loop.currentItem.id>', scope)).toBe('c');
    expect(resolveValue('<loop.items[0]>', scope)).toBe('a');
    expect(resolveValue('<parallel.currentItem>', scope)).toBe('x');
    expect(resolveValue('<parallel.index>', scope)).toBe(0);
    expect(resolveValue('<variable.count>', scope)).toBe(7);
  });

  it('resolves through objects and arrays and leaves other values alone', () => {
    const resolved = resolveValue(
      { list: ['<start.age>', 'n=<shout.count>', 5, null], nested: { flag: true, who: '<start.topic>' } },
      scopeOf(),
    );

    expect(resolved).toEqual({ list: [42, 'n=3', 5, null], nested: { flag: true, who: 'hello' } });
  });

  it('extracts references with normalized roots and parsed paths', () => {
    const found = extractReferences(
      'x <Shout.result> y <api.data.items[0].name> <nope.x>',
      new Set(['shout', 'api']),
    );

    expect(found.map(({ raw, root, path }) => ({ raw, root, path }))).toEqual([
      { raw: '<Shout.result>', root: 'shout', path: ['result'] },
      { raw: '<api.data.items[0].name>', root: 'api', path: ['data', 'items', 0, 'name'] },
    ]);
  });
});
