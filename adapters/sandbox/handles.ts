/**
 * Small pieces every part of the sandbox shares: how sources are evaluated, the intrinsics taken
 * from a fresh context, and reading plain values and thrown errors back on the host.
 */
import type { ContextEvalOptions, QuickJSContext, QuickJSHandle } from 'quickjs-emscripten-core';

/** Every source evaluated here starts with a parenthesis: looking for module syntax would be wasted. */
export const scriptOptions: ContextEvalOptions = { type: 'global' };

/**
 * Handles taken from the fresh context before user code runs, so that code replacing `JSON` or
 * `Object.freeze` cannot affect what the host does with them.
 */
export interface Intrinsics {
  stringify: QuickJSHandle;
  freeze: QuickJSHandle;
}

/** `String(value)` read on the host, for a value that is neither an object, a function nor a symbol. */
export function plainText(vm: QuickJSContext, value: QuickJSHandle, type: string): string {
  switch (type) {
    case 'string':
    case 'bigint':
      return vm.getString(value);
    case 'number':
      return String(vm.getNumber(value));
    case 'boolean':
      return vm.getNumber(value) === 0 ? 'false' : 'true';
    case 'object':
      return 'null';
    default:
      return 'undefined';
  }
}

/** `name: message` of a thrown object whose name and message are strings, as `describe` would put it. */
export function errorMessageOf(vm: QuickJSContext, error: QuickJSHandle): string | undefined {
  const name = vm.getProp(error, 'name');
  try {
    if (vm.typeof(name) !== 'string') return undefined;
    const message = vm.getProp(error, 'message');
    try {
      if (vm.typeof(message) !== 'string') return undefined;
      return (vm.getString(name) || 'Error') + ': ' + vm.getString(message);
    } finally {
      message.dispose();
    }
  } finally {
    name.dispose();
  }
}
