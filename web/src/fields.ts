/**
 * One control per input type, each with its label, description and error line wired for screen
 * readers (`aria-describedby`, `aria-invalid`), and its own check of what was entered.
 */
import { h, uniqueId } from './dom';
import { filesOf, readFiles } from './files';
import {
  type Checked,
  checkFiles,
  checkJson,
  checkNumber,
  checkText,
  type FormField,
  initialText,
  initialToggle,
} from './values';

export interface FieldControl {
  field: FormField;
  element: HTMLElement;
  input: HTMLInputElement | HTMLTextAreaElement;
  check(): Checked;
  /** The value to send, once `check` passed; files are read only now. */
  value(): Promise<unknown>;
  showError(message?: string): void;
}

// A mistake shown when a field loses focus moves everything below it. When focus leaves because a
// button is being pressed, the button would slide out from under the pointer and the press would
// miss: the check waits, and the button's own action (submit checks every field) shows it instead.
let pressingButton = false;
document.addEventListener(
  'pointerdown',
  (event) => {
    pressingButton = event.target instanceof Element && event.target.closest('button') !== null;
  },
  true,
);
document.addEventListener('pointerup', () => setTimeout(() => (pressingButton = false)), true);

const jsonHints = {
  object: 'A JSON object, like {"key": "value"}.',
  array: 'A JSON list, like ["red", "green"].',
};

export function fieldControl(field: FormField): FieldControl {
  const id = uniqueId(`field-${field.name.replace(/[^\w-]/g, '_')}`);
  const descriptionId = `${id}-description`;
  const errorId = `${id}-error`;
  const hint = field.type === 'object' || field.type === 'array' ? jsonHints[field.type] : undefined;
  const describedBy = [field.description || hint ? descriptionId : undefined, errorId]
    .filter(Boolean)
    .join(' ');
  const common = {
    id,
    name: field.name,
    'aria-describedby': describedBy,
    'aria-required': field.required ? 'true' : undefined,
  };
  const input = inputOf(field, common);
  const error = h('p', { id: errorId, class: 'field-error', hidden: true });
  const label = h(
    'label',
    { for: id },
    field.label,
    field.required ? h('span', { class: 'required' }, ' (required)') : null,
  );
  const description =
    field.description || hint
      ? h(
          'p',
          { id: descriptionId, class: 'field-description' },
          [field.description, hint].filter(Boolean).join(' '),
        )
      : null;
  const element =
    field.type === 'boolean'
      ? h(
          'div',
          { class: 'field field-toggle' },
          h('div', { class: 'toggle-row' }, input, label),
          description,
          error,
        )
      : h('div', { class: 'field' }, label, description, input, error);

  const control: FieldControl = {
    field,
    element,
    input,
    check: () => checkOf(field, input),
    async value() {
      if (field.type === 'files') {
        const files = filesOf((input as HTMLInputElement).files);
        return files.length > 0 ? readFiles(files) : undefined;
      }
      const checked = checkOf(field, input);
      return checked.ok ? checked.value : undefined;
    },
    showError(message) {
      error.textContent = message ?? '';
      error.hidden = !message;
      if (message) input.setAttribute('aria-invalid', 'true');
      else input.removeAttribute('aria-invalid');
    },
  };
  // A mistake is pointed out when the person leaves the field, and cleared as soon as it is fixed.
  input.addEventListener(field.type === 'files' || field.type === 'boolean' ? 'change' : 'blur', () => {
    if (pressingButton) return;
    const checked = control.check();
    control.showError(checked.ok ? undefined : checked.message);
  });
  input.addEventListener('input', () => {
    if (input.getAttribute('aria-invalid') === 'true' && control.check().ok) control.showError();
  });
  return control;
}

function inputOf(
  field: FormField,
  common: Record<string, string | undefined>,
): HTMLInputElement | HTMLTextAreaElement {
  switch (field.type) {
    case 'number':
      return h('input', {
        ...common,
        type: 'number',
        step: 'any',
        inputmode: 'decimal',
        value: initialText(field),
      });
    case 'boolean':
      return h('input', { ...common, type: 'checkbox', role: 'switch', checked: initialToggle(field) });
    case 'object':
    case 'array':
      return withText(
        h('textarea', { ...common, class: 'json', rows: 5, spellcheck: 'false', autocapitalize: 'off' }),
        initialText(field),
      );
    case 'files':
      return h('input', { ...common, type: 'file', multiple: true });
    default:
      return h('input', { ...common, type: 'text', value: initialText(field) });
  }
}

function withText(textarea: HTMLTextAreaElement, text: string): HTMLTextAreaElement {
  textarea.value = text;
  return textarea;
}

function checkOf(field: FormField, input: HTMLInputElement | HTMLTextAreaElement): Checked {
  switch (field.type) {
    case 'number':
      return checkNumber(field, input.value, (input as HTMLInputElement).validity.badInput);
    case 'boolean':
      return { ok: true, value: (input as HTMLInputElement).checked };
    case 'object':
    case 'array':
      return checkJson(field, input.value);
    case 'files':
      return checkFiles(
        field,
        filesOf((input as HTMLInputElement).files).map((file) => file.size),
      );
    default:
      return checkText(field, input.value);
  }
}
