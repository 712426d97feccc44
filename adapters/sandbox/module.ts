/**
 * The QuickJS WebAssembly module of a thread, one per heap size: compiled once, with a heap whose
 * ceiling is the hard bound of every sandbox made from it (see quickjs.ts).
 */
import variantModule from '@jitl/quickjs-singlefile-cjs-release-sync';
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSSyncVariant,
  type QuickJSWASMModule,
} from 'quickjs-emscripten-core';

const wasmPageInBytes = 64 * 1024;
const initialHeapInBytes = 16 * 1024 * 1024;

/** The package is CommonJS; depending on the loader its default export arrives wrapped once more. */
const baseVariant: QuickJSSyncVariant =
  (variantModule as unknown as { default?: QuickJSSyncVariant }).default ?? variantModule;

/** The lib settings of this project leave out the WebAssembly globals; only the memory constructor is needed. */
const { WebAssembly: wasm } = globalThis as unknown as {
  WebAssembly: { Memory: new (descriptor: { initial: number; maximum: number }) => { buffer: ArrayBuffer } };
};

export interface LoadedModule {
  module: QuickJSWASMModule;
  /** How large the WebAssembly heap has grown; it never shrinks. */
  heapInBytes: () => number;
  /** True when the heap has grown to its ceiling: QuickJS then throws `null` for lack of room for an error. */
  heapIsFull: () => boolean;
}

const modules = new Map<number, Promise<LoadedModule>>();
/** The same modules once loaded, so that a run does not wait a turn for a promise that settled long ago. */
const loadedModules = new Map<number, LoadedModule>();

/** Compiling the module costs tens of milliseconds, so it is done once per process and heap size. */
export function loadModule(heapLimitInBytes: number): LoadedModule | Promise<LoadedModule> {
  const ready = loadedModules.get(heapLimitInBytes);
  if (ready) return ready;
  let loaded = modules.get(heapLimitInBytes);
  if (!loaded) {
    const maximum = Math.max(1, Math.floor(heapLimitInBytes / wasmPageInBytes));
    const wasmMemory = new wasm.Memory({
      initial: Math.min(maximum, initialHeapInBytes / wasmPageInBytes),
      maximum,
    });
    const heapIsFull = () => wasmMemory.buffer.byteLength + wasmPageInBytes > maximum * wasmPageInBytes;
    const loading = newQuickJSWASMModuleFromVariant(newVariant(baseVariant, { wasmMemory })).then(
      (module) => ({
        module,
        heapInBytes: () => wasmMemory.buffer.byteLength,
        heapIsFull,
      }),
    );
    loading.then(
      (module) => {
        if (modules.get(heapLimitInBytes) === loading) loadedModules.set(heapLimitInBytes, module);
      },
      // A failed load must not poison the cache for the rest of the process.
      () => {
        if (modules.get(heapLimitInBytes) === loading) forgetModule(heapLimitInBytes);
      },
    );
    modules.set(heapLimitInBytes, loading);
    loaded = loading;
  }
  return loaded;
}

/** The WebAssembly heaps of this thread's sandboxes, in bytes: what a worker thread gives back when it ends. */
export function sandboxHeapInBytes(): number {
  let total = 0;
  for (const loaded of loadedModules.values()) total += loaded.heapInBytes();
  return total;
}

export function forgetModule(heapLimitInBytes: number): void {
  modules.delete(heapLimitInBytes);
  loadedModules.delete(heapLimitInBytes);
}

/** The module for this heap size if it has loaded: what a worker prepares the next run's sandbox with. */
export function loadedModule(heapLimitInBytes: number): LoadedModule | undefined {
  return loadedModules.get(heapLimitInBytes);
}
