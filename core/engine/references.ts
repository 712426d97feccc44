/**
 * References between blocks: `<blockname.path>`, the special roots `start`, `loop`,
 * `parallel` and `variable`, and `{{ENV_VAR}}`. Pure functions: the caller supplies the scope.
 *
 * `<` starts a reference only when the name after it is a block of the graph or a special root, so
 * `a < b`, `x<y` or `<div>` in text and code stay as they are.
 */

export type PathSegment = string | number;

export interface Reference {
  /** The text as written, e.g. `<Shout.result[0]>`. */
  raw: string;
  /** The root name, normalized (lowercased, spaces removed). */
  root: string;
  path: PathSegment[];
  /** Offsets in the text it was found in; `end` is exclusive. */
  start: number;
  end: number;
}

export interface EnvironmentReference {
  raw: string;
  name: string;
  start: number;
  end: number;
}

export interface IterationScope {
  index: number;
  currentItem: unknown;
  items: unknown;
}

/** What references resolve against. */
export interface ReferenceScope {
  /** Normalized names of every block in the graph: only these and the special roots are references. */
  blockNames: ReadonlySet<string>;
  /** Outputs of the blocks that have run, by normalized name. */
  outputs: Readonly<Record<string, unknown>>;
  /** Output of the start block, which `<start.x>` reaches whatever the block is called. */
  start?: unknown;
  variables?: Readonly<Record<string, unknown>>;
  environment?: Readonly<Record<string, string>>;
  loop?: IterationScope;
  parallel?: IterationScope;
  /** Leave `{{NAME}}` as written; for what is shown in trace spans and logs, which must not hold secrets. */
  redactEnvironment?: boolean;
}

export const specialRoots: readonly string[] = ['start', 'loop', 'parallel', 'variable'];
const iterationFields: readonly string[] = ['index', 'currentItem', 'items'];

/** Lowercased with whitespace removed: how names are compared and written in references. */
export function normalizeName(name: string): string {
  return name.toLowerCase().replace(/\s+/g, '');
}

const referencePattern = /<([\p{L}\p{N}_-]+)((?:\.[\p{L}\p{N}_$-]+|\[\d+\])*)>/gu;
const environmentPattern = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;
const segmentPattern = /\.([^.[\]]+)|\[(\d+)\]/g;

function parsePath(text: string): PathSegment[] {
  const path: PathSegment[] = [];
  for (const match of text.matchAll(segmentPattern)) path.push(match[1] ?? Number(match[2]));
  return path;
}

/** Every `<name.path>` written in the text, whether or not the name exists; graph validation uses it. */
export function findReferenceCandidates(text: string): Reference[] {
  const found: Reference[] = [];
  for (const match of text.matchAll(referencePattern)) {
    found.push({
      raw: match[0],
      root: normalizeName(match[1]),
      path: parsePath(match[2]),
      start: match.index,
      end: match.index + match[0].length,
    });
  }
  return found;
}

/** Whether `<root...>` is a reference in this scope. A bare special root (`<loop>`) is not one. */
export function isReferenceRoot(
  root: string,
  path: readonly PathSegment[],
  blockNames: ReadonlySet<string>,
): boolean {
  if (blockNames.has(root)) return true;
  if (root === 'start') return true;
  return specialRoots.includes(root) && path.length > 0;
}

/** The references in the text, given the normalized names of the graph's blocks. */
export function extractReferences(text: string, blockNames: ReadonlySet<string>): Reference[] {
  return findReferenceCandidates(text).filter((reference) =>
    isReferenceRoot(reference.root, reference.path, blockNames),
  );
}

export function extractEnvironmentReferences(text: string): EnvironmentReference[] {
  const found: EnvironmentReference[] = [];
  for (const match of text.matchAll(environmentPattern)) {
    found.push({ raw: match[0], name: match[1], start: match.index, end: match.index + match[0].length });
  }
  return found;
}

/** Follows a path through plain data; only own members count, so `constructor` or `__proto__` reach nothing. */
export function readPath(value: unknown, path: readonly PathSegment[]): unknown {
  let current = value;
  for (const segment of path) {
    if (current === null || current === undefined) return undefined;
    const holder = Object(current) as Record<PropertyKey, unknown>;
    const key = typeof segment === 'number' ? String(segment) : segment;
    if (!Object.hasOwn(holder, key)) return undefined;
    current = holder[key];
  }
  return current;
}

export function resolveReference(
  reference: Pick<Reference, 'root' | 'path'>,
  scope: ReferenceScope,
): unknown {
  const { root, path } = reference;
  if (root === 'start') return readPath(scope.start ?? scope.outputs.start, path);
  if (root === 'variable') return readPath(scope.variables, path);
  if (root === 'loop' || root === 'parallel') {
    const iteration = scope[root];
    const field = path[0];
    if (iteration && typeof field === 'string' && iterationFields.includes(field)) {
      return readPath(iteration[field as keyof IterationScope], path.slice(1));
    }
  }
  return readPath(scope.outputs[root], path);
}

export class MissingEnvironmentVariableError extends Error {
  readonly variable: string;
  constructor(variable: string) {
    super(`Environment variable "${variable}" is not set`);
    this.name = 'MissingEnvironmentVariableError';
    this.variable = variable;
  }
}

function environmentValue(reference: EnvironmentReference, scope: ReferenceScope): string {
  if (scope.redactEnvironment) return reference.raw;
  const environment = scope.environment ?? {};
  if (!Object.hasOwn(environment, reference.name)) throw new MissingEnvironmentVariableError(reference.name);
  return environment[reference.name];
}

interface Token {
  start: number;
  end: number;
  raw: string;
  /** One of the two. */
  reference?: Reference;
  environment?: EnvironmentReference;
}

interface ParsedText {
  references: Reference[];
  environment: EnvironmentReference[];
}

/**
 * Config texts are the same every time a block runs (in every iteration of a loop, in every run of
 * a workflow), so what was found in them is kept; the cache is dropped whole when it grows large.
 */
const parsedTexts = new Map<string, ParsedText>();
const maxParsedTexts = 5000;
const nothingFound: ParsedText = { references: [], environment: [] };

function parse(text: string): ParsedText {
  const hasReference = text.includes('<');
  const hasEnvironment = text.includes('{{');
  if (!hasReference && !hasEnvironment) return nothingFound;
  let parsed = parsedTexts.get(text);
  if (!parsed) {
    parsed = {
      references: hasReference ? findReferenceCandidates(text) : [],
      environment: hasEnvironment ? extractEnvironmentReferences(text) : [],
    };
    if (parsedTexts.size >= maxParsedTexts) parsedTexts.clear();
    parsedTexts.set(text, parsed);
  }
  return parsed;
}

/** Every `<name.path>` written in the text, like `findReferenceCandidates`, remembered per text. Do not modify the result. */
export function referenceCandidatesOf(text: string): readonly Reference[] {
  return parse(text).references;
}

/** Both kinds of reference in text order; a `{{...}}` is never inside a `<...>` match and vice versa. */
function tokens(text: string, scope: ReferenceScope): Token[] {
  const { references, environment } = parse(text);
  const found: Token[] = [];
  for (const reference of references) {
    if (isReferenceRoot(reference.root, reference.path, scope.blockNames)) {
      found.push({ start: reference.start, end: reference.end, raw: reference.raw, reference });
    }
  }
  for (const reference of environment) {
    found.push({ start: reference.start, end: reference.end, raw: reference.raw, environment: reference });
  }
  if (references.length > 0 && environment.length > 0) found.sort((a, b) => a.start - b.start);
  return found;
}

function tokenValue(token: Token, scope: ReferenceScope): unknown {
  return token.reference
    ? resolveReference(token.reference, scope)
    : environmentValue(token.environment!, scope);
}

function replaceTokens(
  text: string,
  found: Token[],
  scope: ReferenceScope,
  render: (value: unknown) => string,
): string {
  let result = '';
  let position = 0;
  for (const token of found) {
    if (token.start < position) continue;
    const redacted = token.environment !== undefined && scope.redactEnvironment;
    result += text.slice(position, token.start) + (redacted ? token.raw : render(tokenValue(token, scope)));
    position = token.end;
  }
  return result + text.slice(position);
}

/** How a value reads inside text: strings as they are, objects as JSON, nothing for undefined. */
export function textOf(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'object') return JSON.stringify(value) ?? '';
  return String(value);
}

/** A JavaScript expression that evaluates to the value: JSON, and `undefined` for undefined. */
export function codeLiteralOf(value: unknown): string {
  if (value === undefined) return 'undefined';
  return JSON.stringify(value) ?? 'undefined';
}

export function interpolateText(text: string, scope: ReferenceScope): string {
  return replaceTokens(text, tokens(text, scope), scope, textOf);
}

/** For function code and condition expressions: every reference becomes a JSON literal. */
export function interpolateCode(code: string, scope: ReferenceScope): string {
  return replaceTokens(code, tokens(code, scope), scope, codeLiteralOf);
}

/**
 * Resolves a config value: a string that is exactly one reference takes the referenced value as is
 * (any type); other strings are interpolated; objects and arrays are resolved member by member.
 */
export function resolveValue(value: unknown, scope: ReferenceScope): unknown {
  if (typeof value === 'string') {
    const found = tokens(value, scope);
    if (found.length === 0) return value;
    const trimmed = value.trim();
    const offset = value.indexOf(trimmed);
    const [only] = found;
    if (found.length === 1 && only.start === offset && only.end === offset + trimmed.length) {
      return only.environment !== undefined && scope.redactEnvironment ? only.raw : tokenValue(only, scope);
    }
    return replaceTokens(value, found, scope, textOf);
  }
  if (Array.isArray(value)) return value.map((item) => resolveValue(item, scope));
  if (value !== null && typeof value === 'object') {
    const resolved: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(value)) resolved[key] = resolveValue(member, scope);
    return resolved;
  }
  return value;
}
