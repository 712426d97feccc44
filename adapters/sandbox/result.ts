/** A run's result read back from the sandbox as JSON would carry it, within the block's output cap. */
import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten-core';
import { formatBytes } from '../../core/engine/json-size';
import { SandboxError } from './sandbox-error';

/**
 * The result as JSON would carry it. Numbers, booleans, `undefined` and `null` are read directly;
 * everything else goes through the sandbox's own `JSON.stringify` (strings too: the host's string
 * reader stops at a NUL character).
 */
export function resultOf(
  vm: QuickJSContext,
  value: QuickJSHandle,
  stringify: QuickJSHandle,
  fail: (error: QuickJSHandle) => SandboxError,
  maxResultBytes = Number.POSITIVE_INFINITY,
): unknown {
  switch (vm.typeof(value)) {
    case 'undefined':
    case 'symbol':
      return undefined;
    case 'number': {
      const number = vm.getNumber(value);
      if (!Number.isFinite(number)) return null;
      // JSON has no negative zero.
      return number === 0 ? 0 : number;
    }
    case 'boolean':
      return vm.getNumber(value) !== 0;
    case 'object':
      if (vm.eq(value, vm.null)) return null;
      break;
    case 'string': {
      // Checked before reading: a huge string would be copied once more.
      const characters = lengthOf(vm, value);
      checkResultLength(characters, maxResultBytes);
      const text = vm.getString(value);
      // The host's reader stops at a NUL character and turns what is not well-formed text into
      // U+FFFD: a string it did not read whole goes through JSON, which carries every string as is.
      if (text.length === characters && !text.includes('\uFFFD')) return text;
      break;
    }
  }
  const json = vm.callFunction(stringify, vm.undefined, value);
  if (json.error) {
    const error = fail(json.error);
    json.error.dispose();
    throw new SandboxError(`Function result is not JSON-serializable: ${error.message}`, error.kind);
  }
  let text: string | undefined;
  try {
    if (vm.typeof(json.value) === 'string') {
      if (Number.isFinite(maxResultBytes)) checkResultLength(lengthOf(vm, json.value), maxResultBytes);
      text = vm.getString(json.value);
    }
  } finally {
    json.value.dispose();
  }
  return text === undefined ? undefined : JSON.parse(text);
}

/** Fails a result whose text is over the cap while it is still inside the sandbox, not copied out. */
function checkResultLength(characters: number, maxResultBytes: number): void {
  if (characters > maxResultBytes) {
    throw new SandboxError(
      `Function result is larger than ${formatBytes(maxResultBytes)}, the limit of one block's output`,
    );
  }
}

/** The `length` of a string in the sandbox, in UTF-16 code units, read without copying the string. */
function lengthOf(vm: QuickJSContext, text: QuickJSHandle): number {
  const length = vm.getProp(text, 'length');
  const characters = vm.getNumber(length);
  length.dispose();
  return characters;
}
