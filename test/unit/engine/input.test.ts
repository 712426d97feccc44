import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../core/errors';
import { startInputFormat, validateStartInput } from '../../../core/engine/input';
import type { InputField } from '../../../core/engine/types';
import { block, graphOf } from './fixtures';

function graphWith(inputFormat: Array<Omit<InputField, 'type'> & { type?: string }>) {
  return graphOf([block('s', 'start', 'Start', { inputFormat })]);
}

function errorOf(action: () => unknown): ValidationError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return error as ValidationError;
  }
  throw new Error('no error was thrown');
}

describe('startInputFormat', () => {
  it('lists the start block fields with file[] read as files', () => {
    const graph = graphWith([
      { name: 'topic', type: 'string', required: true },
      { name: 'docs', type: 'file[]' },
      { name: 'untyped' },
    ]);

    expect(startInputFormat(graph)).toEqual([
      { name: 'topic', type: 'string', required: true },
      { name: 'docs', type: 'files' },
      { name: 'untyped', type: 'string' },
    ]);
  });

  it('is empty without an input format', () => {
    expect(startInputFormat(graphOf([block('s', 'start', 'Start')]))).toEqual([]);
  });
});

describe('validateStartInput', () => {
  it('drops the control members and passes unknown members through', () => {
    const graph = graphWith([{ name: 'topic', type: 'string' }]);

    const input = validateStartInput(graph, {
      topic: 'hi',
      stream: true,
      selectedOutputs: ['a.b'],
      extra: 1,
    });

    expect(input).toEqual({ topic: 'hi', extra: 1 });
  });

  it('coerces a numeric string to a number', () => {
    const graph = graphWith([{ name: 'age', type: 'number' }]);

    expect(validateStartInput(graph, { age: ' 42.5 ' })).toEqual({ age: 42.5 });
    expect(validateStartInput(graph, { age: 7 })).toEqual({ age: 7 });
  });

  it('rejects a value that is not a number, naming the field', () => {
    const graph = graphWith([{ name: 'age', type: 'number' }]);

    const error = errorOf(() => validateStartInput(graph, { age: 'old' }));

    expect(error.message).toBe('Input field "age" must be a number');
    expect(error.details).toEqual([{ path: 'age', message: 'Input field "age" must be a number' }]);
  });

  it('rejects an object field sent as a JSON string nested deeper than 100 levels, naming the field', () => {
    const graph = graphWith([{ name: 'data', type: 'object' }]);
    const deep = `{"a":${'['.repeat(5000)}${']'.repeat(5000)}}`;

    const error = errorOf(() => validateStartInput(graph, { data: deep }));

    expect(error.message).toBe('Input field "data" is nested deeper than 100 levels');
  });

  it('keeps a string field that merely looks deeply nested', () => {
    const graph = graphWith([{ name: 'text', type: 'string' }]);
    const brackets = '['.repeat(500);

    expect(validateStartInput(graph, { text: brackets })).toEqual({ text: brackets });
  });

  it('coerces "true" and "false" to booleans and rejects other text', () => {
    const graph = graphWith([{ name: 'urgent', type: 'boolean' }]);

    expect(validateStartInput(graph, { urgent: 'true' })).toEqual({ urgent: true });
    expect(validateStartInput(graph, { urgent: 'FALSE' })).toEqual({ urgent: false });
    expect(errorOf(() => validateStartInput(graph, { urgent: 'yes' })).message).toBe(
      'Input field "urgent" must be a boolean',
    );
  });

  it('parses objects and arrays from JSON text and rejects the wrong shape', () => {
    const graph = graphWith([
      { name: 'meta', type: 'object' },
      { name: 'tags', type: 'array' },
    ]);

    expect(validateStartInput(graph, { meta: '{"a":1}', tags: '["x"]' })).toEqual({
      meta: { a: 1 },
      tags: ['x'],
    });
    expect(validateStartInput(graph, { meta: { b: 2 }, tags: [1] })).toEqual({ meta: { b: 2 }, tags: [1] });
    expect(errorOf(() => validateStartInput(graph, { meta: [1] })).message).toBe(
      'Input field "meta" must be an object',
    );
    expect(errorOf(() => validateStartInput(graph, { tags: '{"a":1}' })).message).toBe(
      'Input field "tags" must be an array',
    );
  });

  it('accepts a list of file objects for a files field, declared as files or file[]', () => {
    const graph = graphWith([
      { name: 'docs', type: 'files' },
      { name: 'more', type: 'file[]' },
    ]);
    const file = { name: 'a.txt', base64: 'aGk=', type: 'text/plain' };

    expect(validateStartInput(graph, { docs: [file], more: file })).toEqual({ docs: [file], more: [file] });
    expect(errorOf(() => validateStartInput(graph, { docs: 'a.txt' })).message).toBe(
      'Input field "docs" must be a list of files',
    );
  });

  it('refuses a number, a boolean or an object for a string field, naming the field', () => {
    const graph = graphWith([{ name: 'code', type: 'string' }]);

    for (const code of [1234, true, { a: 1 }]) {
      const error = errorOf(() => validateStartInput(graph, { code }));
      expect(error.statusCode).toBe(400);
      expect(error.details).toEqual([{ path: 'code', message: 'Input field "code" must be a string' }]);
    }
  });

  it('takes a number default of a string field as its text', () => {
    const graph = graphWith([{ name: 'code', type: 'string', default: 1234 }]);

    expect(validateStartInput(graph, {})).toEqual({ code: '1234' });
  });

  it('rejects a missing required field, naming it', () => {
    const graph = graphWith([{ name: 'topic', type: 'string', required: true }]);

    const missing = errorOf(() => validateStartInput(graph, {}));
    const empty = errorOf(() => validateStartInput(graph, { topic: '' }));

    expect(missing.message).toBe('Input field "topic" is required');
    expect(missing.details).toEqual([{ path: 'topic', message: 'Input field "topic" is required' }]);
    expect(empty.message).toBe('Input field "topic" is required');
  });

  it('applies defaults to missing fields, coerced to the field type', () => {
    const graph = graphWith([
      { name: 'count', type: 'number', required: true, default: '3' },
      { name: 'mode', type: 'string', default: 'fast' },
      { name: 'note', type: 'string' },
    ]);

    expect(validateStartInput(graph, { mode: null })).toEqual({ count: 3, mode: 'fast' });
  });

  it('lists every bad field in the details', () => {
    const graph = graphWith([
      { name: 'age', type: 'number' },
      { name: 'topic', type: 'string', required: true },
    ]);

    const error = errorOf(() => validateStartInput(graph, { age: 'x' }));

    expect(error.details?.map((detail) => detail.path)).toEqual(['age', 'topic']);
  });
});
