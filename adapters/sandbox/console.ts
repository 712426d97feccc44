/**
 * The sandbox's `console`: one host function per method that formats its arguments as Node would,
 * on the host where that is cheap and inside the sandbox (a formatter compiled only when needed)
 * where only the sandbox can tell or reading item by item would cost more.
 */
import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten-core';
import { errorMessageOf, type Intrinsics, plainText, scriptOptions } from './handles';

const consoleMethods = ['log', 'info', 'warn', 'error', 'debug'];

/**
 * The console's formatter, as `inspect(value, depth, seen)`. The host formats plain values and small
 * objects itself (see ConsoleFormatter); this one, compiled in a run only when needed, takes what is
 * cheaper or only possible to read inside the sandbox: wide arrays and objects, symbols, odd functions.
 */
const inspectSource = `(function () {
  const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
  function quote(text) {
    return "'" + text.replace(/\\\\/g, '\\\\\\\\').replace(/'/g, "\\\\'").replace(/\\n/g, '\\\\n') + "'";
  }
  function inspect(value, depth, seen) {
    switch (typeof value) {
      case 'string': return depth === 0 ? value : quote(value);
      case 'bigint': return String(value) + 'n';
      case 'symbol': return value.toString();
      case 'function': return '[Function: ' + (value.name || '(anonymous)') + ']';
      case 'object': break;
      default: return String(value);
    }
    if (value === null) return 'null';
    if (seen.includes(value)) return '[Circular]';
    if (value instanceof Error) return value.stack ? value.name + ': ' + value.message + '\\n' + value.stack.trimEnd() : value.name + ': ' + value.message;
    if (value instanceof Date) return isNaN(value) ? 'Invalid Date' : value.toISOString();
    if (value instanceof RegExp) return String(value);
    const isArray = Array.isArray(value);
    if (depth > 2) return isArray ? '[Array]' : '[Object]';
    const inner = seen.concat([value]);
    const parts = isArray
      ? value.map((item) => inspect(item, depth + 1, inner))
      : Object.keys(value).map((key) => (identifier.test(key) ? key : quote(key)) + ': ' + inspect(value[key], depth + 1, inner));
    if (parts.length === 0) return isArray ? '[]' : '{}';
    return isArray ? '[ ' + parts.join(', ') + ' ]' : '{ ' + parts.join(', ') + ' }';
  }
  return inspect;
})()`;

/** Wider arrays and objects go to the formatter inside the sandbox, where reading an item costs less. */
const maxItemsFormattedOnHost = 64;

/**
 * What the console shows for an object that only the sandbox can tell (errors, dates, regular
 * expressions, exactly as the formatter above puts them), else how the host goes on: the keys to
 * list (`Object.keys`), or 0 `[Object]`, 1 `[Array]`, 2 list the items (no holes, no extra keys),
 * 3 leave it to the formatter. A handful of lines: compiling it costs a fraction of the formatter.
 */
const classifySource = `(function (value, depth) {
  if (value instanceof Error) return value.stack ? value.name + ': ' + value.message + '\\n' + value.stack.trimEnd() : value.name + ': ' + value.message;
  if (value instanceof Date) return isNaN(value) ? 'Invalid Date' : value.toISOString();
  if (value instanceof RegExp) return String(value);
  const isArray = Array.isArray(value);
  if (depth > 2) return isArray ? 1 : 0;
  const keys = Object.keys(value);
  if (keys.length > ${maxItemsFormattedOnHost}) return 3;
  return isArray ? (keys.length === value.length ? 2 : 3) : keys;
})`;

/** The formatter inside the sandbox must redo a whole value: the host read a getter that threw. */
class ReadFailed extends Error {}

/** The sandbox threw while a value was read; the console call throws it on. */
class ThrownInSandbox extends Error {
  readonly thrown: QuickJSHandle;

  constructor(thrown: QuickJSHandle) {
    super('thrown in the sandbox');
    this.thrown = thrown;
  }
}

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function quote(text: string): string {
  return "'" + text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n') + "'";
}

/**
 * Formats console arguments as `inspect` inside the sandbox would, reading them through handles:
 * each value is read once, in the same order, getters included. What only the sandbox can tell
 * (`instanceof`, dates, error stacks) comes from a small compiled helper; wide or unusual values go
 * to the full formatter, compiled only then.
 */
class ConsoleFormatter {
  private classify: QuickJSHandle | undefined;
  private inspect: QuickJSHandle | undefined;

  constructor(
    private readonly vm: QuickJSContext,
    private readonly owned: QuickJSHandle[],
  ) {}

  /** The text of one console argument; throws ThrownInSandbox with what reading it threw. */
  format(value: QuickJSHandle): string {
    try {
      return this.show(value, 0, []);
    } catch (error) {
      if (!(error instanceof ReadFailed)) throw error;
      return this.inSandbox(value, 0, []);
    }
  }

  private show(value: QuickJSHandle, depth: number, seen: QuickJSHandle[]): string {
    const { vm } = this;
    const type = vm.typeof(value);
    switch (type) {
      case 'string':
        return depth === 0 ? vm.getString(value) : quote(vm.getString(value));
      case 'bigint':
        return vm.getString(value) + 'n';
      case 'number':
      case 'boolean':
      case 'undefined':
        return plainText(vm, value, type);
      case 'function':
        return this.showFunction(value, depth, seen);
      case 'object':
        break;
      case 'unknown':
        // What a getter threw is pending; the formatter reads the value again and throws it properly.
        throw new ReadFailed();
      default:
        return this.inSandbox(value, depth, seen);
    }
    if (vm.eq(value, vm.null)) return 'null';
    for (const ancestor of seen) if (vm.eq(value, ancestor)) return '[Circular]';
    const kind = this.kindOf(value, depth);
    if (typeof kind === 'string') return kind;
    const inner = [...seen, value];
    const parts: string[] = [];
    if (typeof kind === 'number') {
      if (kind === 0) return '[Object]';
      if (kind === 1) return '[Array]';
      if (kind !== 2) return this.inSandbox(value, depth, seen);
      const length = vm.getLength(value) ?? 0;
      for (let index = 0; index < length; index++) {
        const item = vm.getProp(value, index);
        try {
          parts.push(this.show(item, depth + 1, inner));
        } finally {
          item.dispose();
        }
      }
      return parts.length === 0 ? '[]' : '[ ' + parts.join(', ') + ' ]';
    }
    try {
      const count = vm.getLength(kind) ?? 0;
      for (let index = 0; index < count; index++) {
        const key = vm.getProp(kind, index);
        try {
          const name = vm.getString(key);
          const item = vm.getProp(value, key);
          try {
            parts.push(
              (identifier.test(name) ? name : quote(name)) + ': ' + this.show(item, depth + 1, inner),
            );
          } finally {
            item.dispose();
          }
        } finally {
          key.dispose();
        }
      }
    } finally {
      kind.dispose();
    }
    return parts.length === 0 ? '{}' : '{ ' + parts.join(', ') + ' }';
  }

  private showFunction(value: QuickJSHandle, depth: number, seen: QuickJSHandle[]): string {
    const { vm } = this;
    const name = vm.getProp(value, 'name');
    try {
      const type = vm.typeof(name);
      if (type === 'unknown') throw new ReadFailed();
      if (type !== 'string') return this.inSandbox(value, depth, seen);
      return '[Function: ' + (vm.getString(name) || '(anonymous)') + ']';
    } finally {
      name.dispose();
    }
  }

  /** The classifier's answer; the keys come as the sandbox array, which the caller disposes. */
  private kindOf(value: QuickJSHandle, depth: number): string | number | QuickJSHandle {
    const { vm } = this;
    if (!this.classify) this.classify = this.compile(classifySource, 'classify.js');
    const depthHandle = vm.newNumber(depth);
    const kind = vm.callFunction(this.classify, vm.undefined, value, depthHandle);
    depthHandle.dispose();
    if (kind.error) throw new ThrownInSandbox(kind.error);
    const type = vm.typeof(kind.value);
    if (type === 'object') return kind.value;
    try {
      return type === 'string' ? vm.getString(kind.value) : vm.getNumber(kind.value);
    } finally {
      kind.value.dispose();
    }
  }

  /** `inspect(value, depth, seen)` run by the formatter inside the sandbox. */
  private inSandbox(value: QuickJSHandle, depth: number, seen: QuickJSHandle[]): string {
    const { vm } = this;
    if (!this.inspect) this.inspect = this.compile(inspectSource, 'console.js');
    const seenArray = vm.newArray();
    const depthHandle = vm.newNumber(depth);
    try {
      seen.forEach((ancestor, index) => {
        vm.setProp(seenArray, index, ancestor);
      });
      const shown = vm.callFunction(this.inspect, vm.undefined, value, depthHandle, seenArray);
      if (shown.error) throw new ThrownInSandbox(shown.error);
      const text = vm.getString(shown.value);
      shown.value.dispose();
      return text;
    } finally {
      depthHandle.dispose();
      seenArray.dispose();
    }
  }

  private compile(source: string, filename: string): QuickJSHandle {
    const compiled = this.vm.evalCode(source, filename, scriptOptions);
    if (compiled.error) throw new ThrownInSandbox(asCallFailure(this.vm, compiled.error));
    this.owned.push(compiled.value);
    return compiled.value;
  }
}

/**
 * Compiling at the edge of the stack fails with a SyntaxError; calling a function there fails with
 * an InternalError, which is what the code gets from `console.log` when it runs out of stack.
 */
function asCallFailure(vm: QuickJSContext, error: QuickJSHandle): QuickJSHandle {
  if (vm.typeof(error) !== 'object' || errorMessageOf(vm, error) !== 'SyntaxError: stack overflow')
    return error;
  const internalError = vm.getProp(vm.global, 'InternalError');
  const message = vm.newString('stack overflow');
  // Made there, or thrown for want of stack: either way an InternalError, unless the code replaced it.
  const made = vm.callFunction(internalError, vm.undefined, message);
  message.dispose();
  internalError.dispose();
  const replacement = made.error ?? made.value;
  if (vm.typeof(replacement) !== 'object') {
    replacement.dispose();
    return error;
  }
  error.dispose();
  return replacement;
}

/** `console.log` and its siblings: one host function, frozen into `console`. */
export function installConsole(
  vm: QuickJSContext,
  intrinsics: Intrinsics,
  owned: QuickJSHandle[],
  write: (line: string) => void,
  truncated: () => boolean,
): void {
  const formatter = new ConsoleFormatter(vm, owned);
  const line = vm.newFunction('line', (...args: QuickJSHandle[]) => {
    const parts: string[] = [];
    for (const arg of args) {
      const type = vm.typeof(arg);
      if (type !== 'function' && type !== 'symbol' && (type !== 'object' || vm.eq(arg, vm.null))) {
        // Once the output is cut, a plain value has nothing left to show; an object is still read (getters).
        if (!truncated()) parts.push(type === 'bigint' ? vm.getString(arg) + 'n' : plainText(vm, arg, type));
        continue;
      }
      try {
        parts.push(formatter.format(arg));
      } catch (error) {
        if (error instanceof ThrownInSandbox) return { error: error.thrown };
        throw error;
      }
    }
    if (!truncated()) write(parts.join(' '));
  });
  const consoleObject = vm.newObject();
  for (const method of consoleMethods) vm.setProp(consoleObject, method, line);
  line.dispose();
  vm.callFunction(intrinsics.freeze, vm.undefined, consoleObject).dispose();
  vm.setProp(vm.global, 'console', consoleObject);
  consoleObject.dispose();
}

export function formatStdout(lines: string[]): string {
  return lines.length === 0 ? '' : lines.join('\n') + '\n';
}
