import { describe, expect, it } from 'vitest';
import { block, graphOf } from '../../../core/engine/builders';
import { formFieldsOf, labelOf } from '../../../core/forms/fields';

const graph = (inputFormat: unknown[]) => graphOf([block('start', 'start', 'Start', { inputFormat })], []);

describe('formFieldsOf', () => {
  it('gives each input field its type, a readable label, its description, required flag and default', () => {
    const fields = formFieldsOf(
      graph([
        { name: 'customerEmail', type: 'string', required: true, description: 'Where we answer' },
        { name: 'count', type: 'number', default: 3 },
        { name: 'uploads', type: 'file[]' },
      ]),
    );

    expect(fields).toEqual([
      {
        name: 'customerEmail',
        type: 'string',
        label: 'Customer email',
        description: 'Where we answer',
        required: true,
      },
      { name: 'count', type: 'number', label: 'Count', required: false, default: 3 },
      { name: 'uploads', type: 'files', label: 'Uploads', required: false },
    ]);
  });

  it("applies the form's label and description overrides by field name", () => {
    const fields = formFieldsOf(graph([{ name: 'msg', type: 'string', description: 'old' }]), {
      msg: { label: 'Your message', description: 'Say hello' },
    });

    expect(fields).toEqual([
      { name: 'msg', type: 'string', label: 'Your message', description: 'Say hello', required: false },
    ]);
  });

  it('has no fields for a Start block without an input format', () => {
    expect(formFieldsOf(graph([]))).toEqual([]);
  });

  it('ignores an override named like an object prototype member', () => {
    const fields = formFieldsOf(graph([{ name: 'toString', type: 'string' }]), {});

    expect(fields[0].label).toBe('To string');
  });
});

describe('labelOf', () => {
  it('turns camelCase, snake_case and kebab-case names into words', () => {
    expect(labelOf('firstName')).toBe('First name');
    expect(labelOf('first_name')).toBe('First name');
    expect(labelOf('first-name')).toBe('First name');
  });
});
