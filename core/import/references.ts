/**
 * Sim's reference syntax next to ours. Both write `<blockname.path>`, `<variable.name>` and
 * `{{NAME}}`, and both compare names lowercased without spaces; Sim also drops dots, and puts a
 * placeholder inside a quoted string of function code into the string, where ours would insert a
 * JSON literal. These helpers rewrite what differs, so a reference means the same after import.
 */
import { isReferenceRoot, normalizeName, type PathSegment } from '../engine/references';

/** `.a.b[0]` as path segments. */
function parsePathText(text: string): PathSegment[] {
  const path: PathSegment[] = [];
  for (const match of text.matchAll(/\.([^.[\]]+)|\[(\d+)\]/g)) path.push(match[1] ?? Number(match[2]));
  return path;
}

/** Sim's block and variable names as references see them: lowercased, no spaces, no dots. */
export function simReferenceName(name: string): string {
  return normalizeName(name).replace(/\./g, '');
}

/**
 * Sim finds `<variable.Name>` by the variable's name lowercased without spaces or dots; here the
 * name is looked up as written, and imported variables are named that way. So such references are
 * written in the same form, in every text of a block's config.
 */
export function normalizeVariableReferences<T>(value: T): T {
  if (typeof value === 'string') {
    return value.replace(
      /<variable\.([\p{L}\p{N}_$-]+)/gu,
      (_whole, name: string) => `<variable.${simReferenceName(name)}`,
    ) as T;
  }
  if (Array.isArray(value)) return value.map((item) => normalizeVariableReferences(item)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, member]) => [key, normalizeVariableReferences(member)]),
    ) as T;
  }
  return value;
}

/** A block name that references as Sim writes them reach here too: dots are dropped. */
export function importedBlockName(name: string): string {
  return name.replace(/\./g, '').trim();
}

const placeholderPattern =
  /^(?:<([\p{L}\p{N}_-]+)((?:\.[\p{L}\p{N}_$-]+|\[\d+\])*)>|\{\{\s*[A-Za-z_][A-Za-z0-9_]*\s*\}\})/u;

/** The placeholder (`<block.path>` of a known root, or `{{NAME}}`) that starts at `index`, if any. */
function placeholderAt(text: string, index: number, blockNames: ReadonlySet<string>): string | undefined {
  const char = text[index];
  if (char !== '<' && char !== '{') return undefined;
  const match = placeholderPattern.exec(text.slice(index, index + 400));
  if (!match) return undefined;
  if (match[1] !== undefined) {
    const root = normalizeName(match[1]);
    if (!isReferenceRoot(root, parsePathText(match[2]), blockNames)) return undefined;
  }
  return match[0];
}

/**
 * JSON text as Sim's editors hold it (a response's data, an API body, a child's input mapping), where
 * a reference may stand unquoted for a value (`{"n": <start.n>}`): each such reference is quoted, so
 * the text parses, and a value that is exactly one reference keeps the referenced value's type here.
 */
export function quoteBareReferences(text: string, blockNames: ReadonlySet<string>): string {
  let result = '';
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (inString) {
      result += char;
      if (char === '\\') {
        result += text[index + 1] ?? '';
        index += 1;
      } else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') {
      inString = true;
      result += char;
      continue;
    }
    const placeholder = placeholderAt(text, index, blockNames);
    if (placeholder) {
      result += JSON.stringify(placeholder);
      index += placeholder.length - 1;
      continue;
    }
    result += char;
  }
  return result;
}

/** Parses JSON text that may hold bare references; undefined when it is not JSON even so. */
export function parseJsonWithReferences(text: string, blockNames: ReadonlySet<string>): unknown {
  try {
    return JSON.parse(quoteBareReferences(text, blockNames));
  } catch {
    return undefined;
  }
}

type CodeState = 'code' | 'single' | 'double' | 'template' | 'line-comment' | 'block-comment';

/**
 * Function code: Sim puts a placeholder written inside a quoted string into the string
 * (`"Bearer {{KEY}}"`), ours inserts a JSON literal wherever it stands. So a placeholder inside
 * quotes is taken out of them (`"Bearer " + {{KEY}} + ""`), and inside a template literal becomes an
 * interpolation (`${ {{KEY}} }`); a `{{NAME}}` in a comment is broken up (`{ {NAME}}`), as Sim never reads it.
 */
export function rewriteCodePlaceholders(code: string, blockNames: ReadonlySet<string>): string {
  let result = '';
  const states: CodeState[] = ['code'];
  /** Per `${` opened inside a template literal: the brace depth at which it closes. */
  const braces: number[] = [];
  let depth = 0;
  for (let index = 0; index < code.length; index += 1) {
    const char = code[index];
    const next = code[index + 1];
    const state = states[states.length - 1];
    if (state === 'line-comment' || state === 'block-comment') {
      if (state === 'line-comment' && char === '\n') states.pop();
      if (state === 'block-comment' && char === '*' && next === '/') {
        states.pop();
        result += '*/';
        index += 1;
        continue;
      }
      // Sim leaves a comment alone; ours would look the variable up, and fail a run where it is not set.
      const placeholder = char === '{' ? placeholderAt(code, index, blockNames) : undefined;
      if (placeholder) {
        result += `{ ${placeholder.slice(1)}`;
        index += placeholder.length - 1;
      } else result += char;
      continue;
    }
    if (state === 'single' || state === 'double' || state === 'template') {
      if (char === '\\') {
        result += char + (next ?? '');
        index += 1;
        continue;
      }
      const quote = state === 'single' ? "'" : state === 'double' ? '"' : '`';
      if (char === quote) {
        states.pop();
        result += char;
        continue;
      }
      if (state === 'template' && char === '$' && next === '{') {
        states.push('code');
        braces.push(depth);
        depth += 1;
        result += '${';
        index += 1;
        continue;
      }
      const placeholder = placeholderAt(code, index, blockNames);
      if (placeholder) {
        result += state === 'template' ? `\${ ${placeholder} }` : `${quote} + ${placeholder} + ${quote}`;
        index += placeholder.length - 1;
        continue;
      }
      result += char;
      continue;
    }
    // Plain code.
    if (char === '/' && next === '/') {
      states.push('line-comment');
      result += '//';
      index += 1;
      continue;
    }
    if (char === '/' && next === '*') {
      states.push('block-comment');
      result += '/*';
      index += 1;
      continue;
    }
    if (char === "'" || char === '"' || char === '`') {
      states.push(char === "'" ? 'single' : char === '"' ? 'double' : 'template');
      result += char;
      continue;
    }
    const placeholder = placeholderAt(code, index, blockNames);
    if (placeholder) {
      result += placeholder;
      index += placeholder.length - 1;
      continue;
    }
    if (char === '{') depth += 1;
    if (char === '}') {
      depth -= 1;
      if (braces.length > 0 && braces[braces.length - 1] === depth && states.length > 1) {
        braces.pop();
        states.pop();
      }
    }
    result += char;
  }
  return result;
}
