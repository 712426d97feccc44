/**
 * The page's checks of what a person typed, the same rules the server applies to a run's input
 * (`core/engine/input.ts`), and the words it shows for the server's answers. No DOM here: the
 * rules are unit tested in Node.
 */

export type FieldType = 'string' | 'number' | 'boolean' | 'object' | 'array' | 'files';
export type AuthType = 'public' | 'password' | 'email';

export interface FormField {
  name: string;
  type: FieldType;
  label: string;
  description?: string;
  required: boolean;
  default?: unknown;
}

export interface FormConfig {
  identifier: string;
  title: string;
  description?: string;
  authType: AuthType;
  thankYouMessage: string;
  fields: FormField[];
}

/** A field's value as it will be sent (`undefined`: left out), or what is wrong with it. */
export type Checked = { ok: true; value?: unknown } | { ok: false; message: string };

/** The JSON body is at most 5 MB and base64 grows files by a third: 3 MB of files in all leaves room for the rest. */
export const maxFilesSizeInBytes = 3 * 1024 * 1024;

/** The server's identifier rule: only such a path segment can be a form. */
export const identifierPattern = /^[a-z0-9](?:[a-z0-9-]{0,98}[a-z0-9])?$/;

const hasDefault = (field: FormField) =>
  field.default !== undefined && field.default !== null && field.default !== '';

/** A required field left empty is fine when it has a default: the server fills it in. */
function missing(field: FormField): Checked {
  if (field.required && !hasDefault(field)) return { ok: false, message: `${field.label} is required.` };
  return { ok: true };
}

export function checkText(field: FormField, raw: string): Checked {
  if (raw === '') return missing(field);
  return { ok: true, value: raw };
}

/** `unreadable`: the browser holds text in the number box that is not a number (`validity.badInput`). */
export function checkNumber(field: FormField, raw: string, unreadable = false): Checked {
  if (unreadable) return { ok: false, message: 'Enter a number, like 42 or 3.5.' };
  if (raw.trim() === '') return missing(field);
  const number = Number(raw.trim());
  if (!Number.isFinite(number)) return { ok: false, message: 'Enter a number, like 42 or 3.5.' };
  return { ok: true, value: number };
}

export function checkJson(field: FormField, raw: string): Checked {
  if (raw.trim() === '') return missing(field);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    return { ok: false, message: `This is not valid JSON (${(error as Error).message}).` };
  }
  if (field.type === 'array' && !Array.isArray(parsed)) {
    return { ok: false, message: 'Enter a JSON list in square brackets, like ["red", "green"].' };
  }
  if (field.type === 'object' && (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))) {
    return { ok: false, message: 'Enter a JSON object in curly braces, like {"key": "value"}.' };
  }
  return { ok: true, value: parsed };
}

export function checkFiles(field: FormField, sizesInBytes: number[]): Checked {
  if (sizesInBytes.length === 0) {
    return field.required
      ? { ok: false, message: `Choose at least one file for ${field.label}.` }
      : { ok: true };
  }
  const total = sizesInBytes.reduce((sum, size) => sum + size, 0);
  if (total > maxFilesSizeInBytes) {
    return {
      ok: false,
      message: `These files are too large: together they must be under ${megabytes(maxFilesSizeInBytes)}.`,
    };
  }
  return { ok: true };
}

export function checkPassword(raw: string): Checked {
  return raw === '' ? { ok: false, message: 'Enter the password.' } : { ok: true, value: raw };
}

export function checkEmail(raw: string): Checked {
  const email = raw.trim();
  if (email === '') return { ok: false, message: 'Enter your e-mail address.' };
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) {
    return { ok: false, message: 'Enter an e-mail address like name@example.com.' };
  }
  return { ok: true, value: email };
}

/** The text a field starts with: its default, JSON values written out. */
export function initialText(field: FormField): string {
  if (!hasDefault(field)) return '';
  if (field.type === 'object' || field.type === 'array') return JSON.stringify(field.default, null, 2);
  return String(field.default);
}

export function initialToggle(field: FormField): boolean {
  return field.default === true || field.default === 'true';
}

export interface ServerError {
  status: number;
  /** A password or e-mail form asked without credentials: the access it needs, and nothing else. */
  authType?: Exclude<AuthType, 'public'>;
  code?: string;
  message?: string;
  details?: { path: string; message: string }[];
  retryAfterInSeconds?: number;
}

/** Per field: what the server found wrong with it, in the page's words. */
export function fieldErrorsOf(error: ServerError, fields: FormField[]): Map<string, string> {
  const errors = new Map<string, string>();
  for (const detail of error.details ?? []) {
    const name = detail.path.replace(/^formData\./, '').split('.')[0];
    const field = fields.find((candidate) => candidate.name === name);
    if (!field || errors.has(name)) continue;
    errors.set(name, fieldMessageOf(field, detail.message));
  }
  return errors;
}

const typeWords: Record<FieldType, string> = {
  string: 'Enter text.',
  number: 'Enter a number, like 42 or 3.5.',
  boolean: 'Choose on or off.',
  object: 'Enter a JSON object in curly braces, like {"key": "value"}.',
  array: 'Enter a JSON list in square brackets, like ["red", "green"].',
  files: 'Choose the files again.',
};

function fieldMessageOf(field: FormField, message: string): string {
  if (/is required/.test(message)) return `${field.label} is required.`;
  if (/must be/.test(message)) return typeWords[field.type];
  if (/No such field/.test(message)) return 'This form no longer has this field. Reload the page.';
  return message;
}

/** The sentence at the top of the form for an answer that is not about one field. */
export function topMessageOf(error: ServerError): string {
  switch (error.status) {
    case 0:
      return 'The form could not reach the server. Check your connection and try again.';
    case 400:
      if (error.message === 'No input fields configured') return error.message;
      if (error.details?.length) return 'Some answers need a change: see the notes below.';
      return error.message ?? 'The form could not be sent. Check your answers and try again.';
    case 401:
      return 'That password is not correct.';
    case 402:
      return 'This form cannot take submissions right now. Please try again later.';
    case 403:
      return 'This e-mail address may not use this form.';
    case 404:
      return 'This form is no longer available.';
    case 413:
      return `These files are too large: together they must be under ${megabytes(maxFilesSizeInBytes)}.`;
    case 429:
      return `Too many submissions just now. Please try again in ${waitWords(error.retryAfterInSeconds)}.`;
    default:
      return 'Something went wrong on our side. Please try again in a moment.';
  }
}

function waitWords(seconds: number | undefined): string {
  if (!seconds || seconds <= 1) return 'a moment';
  if (seconds < 90) return `${seconds} seconds`;
  return `${Math.ceil(seconds / 60)} minutes`;
}

function megabytes(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024))} MB`;
}
