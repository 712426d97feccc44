/** What a workspace environment variable may be: its name, its size, how many a workspace holds. */

export const ENVIRONMENT_NAME_PATTERN = /^[A-Z_][A-Z0-9_]*$/;
export const MAX_ENVIRONMENT_NAME_LENGTH = 128;
/** 64 KB of UTF-8 per value. */
export const MAX_ENVIRONMENT_VALUE_BYTES = 64 * 1024;
export const MAX_ENVIRONMENT_VARIABLES = 200;

export const environmentNameRule =
  'Use upper-case letters, digits and underscores, not starting with a digit (e.g. OPENAI_API_KEY)';

/** Why `name` is not a valid variable name, or undefined when it is. */
export function environmentNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'The name is empty';
  if (name.length > MAX_ENVIRONMENT_NAME_LENGTH) {
    return `The name is longer than ${MAX_ENVIRONMENT_NAME_LENGTH} characters`;
  }
  if (!ENVIRONMENT_NAME_PATTERN.test(name)) return environmentNameRule;
  return undefined;
}

/** Why `value` cannot be stored, or undefined when it can. */
export function environmentValueProblem(value: string): string | undefined {
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes > MAX_ENVIRONMENT_VALUE_BYTES) {
    return `The value is ${bytes} bytes; at most ${MAX_ENVIRONMENT_VALUE_BYTES} bytes (64 KB) are allowed`;
  }
  return undefined;
}
