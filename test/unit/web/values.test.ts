import { describe, expect, it } from 'vitest';
import {
  checkEmail,
  checkFiles,
  checkJson,
  checkNumber,
  checkPassword,
  checkText,
  type FormField,
  fieldErrorsOf,
  initialText,
  maxFilesSizeInBytes,
  topMessageOf,
} from '../../../web/src/values';

const field = (overrides: Partial<FormField> = {}): FormField => ({
  name: 'name',
  type: 'string',
  label: 'Name',
  required: false,
  ...overrides,
});

describe('form page checks', () => {
  it('leaves out an empty optional field and refuses an empty required one by its label', () => {
    expect(checkText(field(), '')).toEqual({ ok: true });
    expect(checkText(field({ required: true }), '')).toEqual({ ok: false, message: 'Name is required.' });
  });

  it('lets a required field with a default be left empty, as the server fills it in', () => {
    expect(checkText(field({ required: true, default: 'Ada' }), '')).toEqual({ ok: true });
  });

  it('sends a number as a number and refuses text the browser could not read as one', () => {
    const age = field({ type: 'number', label: 'Age' });
    expect(checkNumber(age, ' 3.5 ')).toEqual({ ok: true, value: 3.5 });
    expect(checkNumber(age, '', true)).toEqual({ ok: false, message: 'Enter a number, like 42 or 3.5.' });
    expect(checkNumber(age, 'Infinity').ok).toBe(false);
  });

  it('parses JSON and names the shape an object or list field wants', () => {
    const profile = field({ type: 'object', label: 'Profile' });
    const tags = field({ type: 'array', label: 'Tags' });
    expect(checkJson(profile, '{"a": 1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(checkJson(tags, '["a"]')).toEqual({ ok: true, value: ['a'] });
    expect(checkJson(profile, '[1]')).toEqual({
      ok: false,
      message: 'Enter a JSON object in curly braces, like {"key": "value"}.',
    });
    expect(checkJson(tags, '{}')).toEqual({
      ok: false,
      message: 'Enter a JSON list in square brackets, like ["red", "green"].',
    });
    expect(checkJson(profile, '{a: 1}')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^This is not valid JSON/),
    });
    expect(checkJson(profile, 'null').ok).toBe(false);
  });

  it('refuses files that together would not fit in one submission', () => {
    const files = field({ type: 'files', label: 'Attachments', required: true });
    expect(checkFiles(files, [])).toEqual({
      ok: false,
      message: 'Choose at least one file for Attachments.',
    });
    expect(checkFiles(files, [maxFilesSizeInBytes])).toEqual({ ok: true });
    expect(checkFiles(files, [maxFilesSizeInBytes, 1])).toEqual({
      ok: false,
      message: 'These files are too large: together they must be under 3 MB.',
    });
  });

  it('asks for a password and for an address that looks like one', () => {
    expect(checkPassword('')).toEqual({ ok: false, message: 'Enter the password.' });
    expect(checkEmail(' ada@example.com ')).toEqual({ ok: true, value: 'ada@example.com' });
    expect(checkEmail('ada').ok).toBe(false);
    expect(checkEmail('').ok).toBe(false);
  });

  it('starts JSON fields with their default written out', () => {
    expect(initialText(field({ type: 'object', default: { a: 1 } }))).toBe('{\n  "a": 1\n}');
    expect(initialText(field({ type: 'number', default: 3 }))).toBe('3');
    expect(initialText(field())).toBe('');
  });
});

describe('form page messages', () => {
  const fields = [field({ required: true }), field({ name: 'age', type: 'number', label: 'Age' })];

  it('puts each refused field of a 400 next to that field, in the page’s words', () => {
    const errors = fieldErrorsOf(
      {
        status: 400,
        details: [
          { path: 'formData.name', message: 'Input field "name" is required' },
          { path: 'formData.age', message: 'Input field "age" must be a number' },
          { path: 'formData.gone', message: 'No such field in this form' },
        ],
      },
      fields,
    );
    expect(Object.fromEntries(errors)).toEqual({
      name: 'Name is required.',
      age: 'Enter a number, like 42 or 3.5.',
    });
  });

  it('says what went wrong for each refusal that is not about one field', () => {
    expect(topMessageOf({ status: 0 })).toMatch(/could not reach the server/);
    expect(topMessageOf({ status: 400, message: 'No input fields configured' })).toBe(
      'No input fields configured',
    );
    expect(topMessageOf({ status: 401 })).toBe('That password is not correct.');
    expect(topMessageOf({ status: 403 })).toBe('This e-mail address may not use this form.');
    expect(topMessageOf({ status: 413 })).toMatch(/under 3 MB/);
    expect(topMessageOf({ status: 429, retryAfterInSeconds: 30 })).toBe(
      'Too many submissions just now. Please try again in 30 seconds.',
    );
    expect(topMessageOf({ status: 429, retryAfterInSeconds: 600 })).toMatch(/10 minutes/);
    expect(topMessageOf({ status: 502 })).toMatch(/Something went wrong on our side/);
  });
});
