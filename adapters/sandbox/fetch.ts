/**
 * The sandbox's `fetch`: a minimal subset of the web API whose every request goes through the HTTP
 * client the run was given (the outbound guard), with limits on count, size and time. Requests run
 * on the host; the sandbox sees promises that the run loop settles.
 */
import { STATUS_CODES } from 'node:http';
import type {
  QuickJSContext,
  QuickJSDeferredPromise,
  QuickJSHandle,
  VmFunctionImplementation,
} from 'quickjs-emscripten-core';
import type { HttpClient, HttpRequest } from '../../core/net/http';
import type { Intrinsics } from './handles';

/**
 * A request may run this much past the function's deadline, so that the function's own time-out is
 * what the user sees when time runs out, not the request's; the late answer is dropped.
 */
const fetchGraceInMs = 50;

const bodyTypeMessage = 'fetch body must be a string (use JSON.stringify for objects)';

const headersTypeMessage = 'fetch headers must be an object or a list of [name, value] pairs';

/** What `fetch` needs besides those: `JSON.parse` for `json()`, `Reflect.get` to read the caller's options. */
export interface FetchIntrinsics extends Intrinsics {
  parse: QuickJSHandle;
  reflectGet: QuickJSHandle;
}

/**
 * A host function with the `length` a function written in JavaScript would have (this build gives
 * host functions 0, whatever they declare).
 */
function newHostFunction(
  vm: QuickJSContext,
  name: string,
  length: number,
  implementation: VmFunctionImplementation<QuickJSHandle>,
): QuickJSHandle {
  const made = vm.newFunction(name, implementation);
  if (length > 0) {
    const value = vm.newNumber(length);
    vm.defineProp(made, 'length', { value, configurable: true });
    value.dispose();
  }
  return made;
}

export interface FetchLimits {
  maxFetches: number;
  maxResponseBytes: number;
}

export interface HostFetches {
  /** Promises handed to the sandbox and not settled yet; disposed when the run ends. */
  deferreds: Set<QuickJSDeferredPromise>;
  /** Requests under way; each settles its promise in the sandbox, then leaves the set. */
  work: Set<Promise<void>>;
  /** The run is over: late answers are dropped. */
  closed: boolean;
}

interface FetchInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
}

function fetchInitOf(text: string): FetchInit {
  const parsed = JSON.parse(text) as { method?: unknown; headers?: unknown; body?: unknown };
  const headers: Record<string, string> = {};
  if (parsed.headers !== null && typeof parsed.headers === 'object') {
    for (const [name, value] of Object.entries(parsed.headers)) headers[name] = String(value);
  }
  return {
    method: typeof parsed.method === 'string' && parsed.method !== '' ? parsed.method.toUpperCase() : 'GET',
    headers,
    ...(typeof parsed.body === 'string' ? { body: parsed.body } : {}),
  };
}

function decodeBody(body: Uint8Array, contentType: string | undefined): string {
  const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '')?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder().decode(body);
  }
}

/**
 * Ends a `fetch` call with a rejected promise: with a value thrown in the sandbox while reading the
 * arguments, or else with a TypeError carrying `message`, as fetch rejects.
 */
class FetchRejection extends Error {
  readonly thrown: QuickJSHandle | undefined;

  constructor(message: string, thrown?: QuickJSHandle) {
    super(message);
    this.thrown = thrown;
  }
}

/** A TypeError made by the sandbox's `TypeError`, as `new TypeError(message)` in the code would; or what that threw. */
function newTypeError(vm: QuickJSContext, message: string): QuickJSHandle {
  const typeError = vm.getProp(vm.global, 'TypeError');
  const text = vm.newString(message);
  try {
    const made = vm.callFunction(typeError, vm.undefined, text);
    return made.error ?? made.value;
  } finally {
    text.dispose();
    typeError.dispose();
  }
}

/**
 * Reads the arguments of a `fetch` call the way the code sees them (getters, `String()` of what is not
 * a string), collecting every handle it makes in `temporaries`.
 */
class FetchArguments {
  private stringFunction: QuickJSHandle | undefined;

  constructor(
    private readonly vm: QuickJSContext,
    private readonly intrinsics: FetchIntrinsics,
    private readonly temporaries: QuickJSHandle[],
  ) {}

  /** The URL and the init as the host client takes them. */
  read(input: QuickJSHandle, init: QuickJSHandle): { url: string; init: FetchInit } {
    const { vm } = this;
    const options = this.isNullish(init) ? undefined : init;
    const body = options ? this.get(options, 'body') : vm.undefined;
    const bodyType = vm.typeof(body);
    const hasBody = bodyType === 'string';
    if (!hasBody && !this.isNullish(body)) throw new FetchRejection(bodyTypeMessage);
    let target: QuickJSHandle | undefined;
    if (vm.typeof(input) === 'object' && !vm.eq(input, vm.null)) {
      const url = this.get(input, 'url');
      if (vm.typeof(url) === 'string') target = url;
    }
    target ??= this.string(input);
    const method = options ? this.get(options, 'method') : vm.undefined;
    const request = this.keep(vm.newObject());
    vm.setProp(
      request,
      'method',
      vm.typeof(method) === 'undefined' ? this.keep(vm.newString('GET')) : this.string(method),
    );
    vm.setProp(request, 'headers', this.headers(options ? this.get(options, 'headers') : vm.undefined));
    if (hasBody) vm.setProp(request, 'body', body);
    // The same JSON the host client has always taken: exact for any string, NUL characters included.
    const json = this.unwrap(vm.callFunction(this.intrinsics.stringify, vm.undefined, request));
    return { url: vm.getString(target), init: fetchInitOf(vm.getString(json)) };
  }

  /** Headers given as an object, as `[name, value]` pairs, or as a Headers-like object with `forEach`. */
  private headers(given: QuickJSHandle): QuickJSHandle {
    const { vm } = this;
    const headers = this.keep(vm.newObject());
    if (this.isNullish(given)) return headers;
    if (this.isArray(given)) {
      for (let index = 0; index < vm.getNumber(this.get(given, 'length')); index++) {
        const pair = this.get(given, index);
        vm.setProp(headers, this.string(this.get(pair, 0)), this.string(this.get(pair, 1)));
      }
      return headers;
    }
    const type = vm.typeof(given);
    if (
      vm.typeof(this.get(given, 'forEach')) === 'function' &&
      vm.typeof(this.get(given, 'get')) === 'function'
    ) {
      const collect = this.keep(
        vm.newFunction('', (value, name) => {
          try {
            const key = this.string(name ?? vm.undefined);
            vm.setProp(headers, key, this.string(value ?? vm.undefined));
          } catch (error) {
            // Rethrown in the sandbox as it was thrown there; the temporaries keep their own handle.
            if (error instanceof FetchRejection && error.thrown) return { error: error.thrown.dup() };
            throw error;
          }
        }),
      );
      this.unwrap(vm.callFunction(this.get(given, 'forEach'), given, collect));
      return headers;
    }
    if (type !== 'object') throw new FetchRejection(headersTypeMessage);
    const objectConstructor = this.keep(vm.getProp(vm.global, 'Object'));
    const keys = this.keep(vm.getProp(objectConstructor, 'keys'));
    const names = this.unwrap(vm.callFunction(keys, objectConstructor, given));
    const count = vm.getLength(names) ?? 0;
    for (let index = 0; index < count; index++) {
      const name = this.keep(vm.getProp(names, index));
      vm.setProp(headers, name, this.string(this.get(given, name)));
    }
    return headers;
  }

  private isNullish(value: QuickJSHandle): boolean {
    const type = this.vm.typeof(value);
    return type === 'undefined' || (type === 'object' && this.vm.eq(value, this.vm.null));
  }

  private isArray(value: QuickJSHandle): boolean {
    const { vm } = this;
    const array = this.keep(vm.getProp(vm.global, 'Array'));
    const isArray = this.keep(vm.getProp(array, 'isArray'));
    const answer = this.unwrap(vm.callFunction(isArray, array, value));
    return vm.typeof(answer) === 'boolean' && vm.getNumber(answer) !== 0;
  }

  /** `object[key]`, running getters and proxies as the code would, with what they throw caught. */
  private get(object: QuickJSHandle, key: string | number | QuickJSHandle): QuickJSHandle {
    const { vm } = this;
    const type = vm.typeof(object);
    if (type === 'undefined' || (type === 'object' && vm.eq(object, vm.null))) {
      const name = typeof key === 'object' ? vm.getString(key) : String(key);
      throw new FetchRejection(
        `cannot read property '${name}' of ${type === 'undefined' ? 'undefined' : 'null'}`,
      );
    }
    // A primitive has only what its prototype has.
    if (type !== 'object' && type !== 'function') return this.keep(vm.getProp(object, key));
    const keyHandle =
      typeof key === 'object'
        ? key
        : this.keep(typeof key === 'number' ? vm.newNumber(key) : vm.newString(key));
    return this.unwrap(vm.callFunction(this.intrinsics.reflectGet, vm.undefined, object, keyHandle));
  }

  /** `String(value)` as a sandbox string, by the sandbox's current `String` as the code would. */
  private string(value: QuickJSHandle): QuickJSHandle {
    const { vm } = this;
    if (vm.typeof(value) === 'string') return value;
    this.stringFunction ??= this.keep(vm.getProp(vm.global, 'String'));
    return this.unwrap(vm.callFunction(this.stringFunction, vm.undefined, value));
  }

  private keep(handle: QuickJSHandle): QuickJSHandle {
    this.temporaries.push(handle);
    return handle;
  }

  private unwrap(
    result: { value: QuickJSHandle; error?: undefined } | { error: QuickJSHandle },
  ): QuickJSHandle {
    if (result.error)
      throw new FetchRejection('fetch: the arguments could not be read', this.keep(result.error));
    return this.keep(result.value);
  }
}

/**
 * The run a `fetch` serves. The function is made with the rest of a prepared sandbox, before the
 * run is known, and installed only for a run that brings an HTTP client; the run fills this in then.
 */
export interface FetchRun {
  http: HttpClient;
  deadline: number;
  signal: AbortSignal | undefined;
}

/**
 * `fetch` in the sandbox: a host function that reads its arguments, sends the request through the
 * run's HTTP client within what is left of the run's time, and settles the promise it returned with
 * a Response-like object, or rejects it with a TypeError carrying the client's message (a refusal
 * reads exactly as the guard words it), as fetch would.
 */
export function newSandboxFetch(
  vm: QuickJSContext,
  fetchRun: FetchRun,
  fetches: HostFetches,
  limits: FetchLimits,
  intrinsics: FetchIntrinsics,
  owned: QuickJSHandle[],
): QuickJSHandle {
  let calls = 0;
  return newHostFunction(
    vm,
    'fetch',
    2,
    (input: QuickJSHandle | undefined, init: QuickJSHandle | undefined) => {
      const { http, deadline, signal } = fetchRun;
      const deferred = vm.newPromise();
      fetches.deferreds.add(deferred);
      // A promise leaves the set only once settled; whatever is left is disposed when the run ends.
      const rejectWith = (reason: QuickJSHandle) => {
        if (fetches.closed) return;
        deferred.reject(reason);
        fetches.deferreds.delete(deferred);
      };
      const reject = (message: string) => {
        if (fetches.closed) return;
        const error = newTypeError(vm, message);
        try {
          rejectWith(error);
        } finally {
          error.dispose();
        }
      };
      const temporaries: QuickJSHandle[] = [];
      let request: { url: string; init: FetchInit };
      try {
        request = new FetchArguments(vm, intrinsics, temporaries).read(
          input ?? vm.undefined,
          init ?? vm.undefined,
        );
      } catch (error) {
        if (error instanceof FetchRejection && error.thrown) rejectWith(error.thrown);
        else reject(error instanceof Error ? error.message : String(error));
        return deferred.handle;
      } finally {
        for (const handle of temporaries) if (handle.alive) handle.dispose();
      }
      calls += 1;
      if (calls > limits.maxFetches) {
        reject(`fetch: at most ${limits.maxFetches} requests per run`);
        return deferred.handle;
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        reject('fetch: the function has no time left');
        return deferred.handle;
      }
      const { url, init: options } = request;
      // The signal is not part of the port yet; the guarded client honors it when given.
      const outbound: HttpRequest & { signal?: AbortSignal } = {
        url,
        method: options.method,
        headers: options.headers,
        ...(options.body === undefined ? {} : { body: options.body }),
        timeoutInMs: remaining + fetchGraceInMs,
        maxResponseBytes: limits.maxResponseBytes,
        ...(signal ? { signal } : {}),
      };
      const work: Promise<void> = http
        .request(outbound)
        .then(
          (response) => {
            if (fetches.closed) return;
            const headers: Record<string, string> = Object.fromEntries(
              Object.entries(response.headers).map(([name, value]) => [name.toLowerCase(), value]),
            );
            const made = newResponse(vm, intrinsics, owned, {
              status: response.status,
              statusText: STATUS_CODES[response.status] ?? '',
              url,
              headers,
              text: decodeBody(response.body, response.headers['content-type']),
            });
            if (made.error) {
              try {
                rejectWith(made.error);
              } finally {
                made.error.dispose();
              }
              return;
            }
            try {
              deferred.resolve(made.value);
            } finally {
              made.value.dispose();
            }
            fetches.deferreds.delete(deferred);
          },
          (error: unknown) => reject(error instanceof Error ? error.message : String(error)),
        )
        .catch(() => {
          // The context can fail to take the answer (out of memory); the run reports that itself.
        })
        .finally(() => fetches.work.delete(work));
      fetches.work.add(work);
      return deferred.handle;
    },
  );
}

interface FetchAnswer {
  status: number;
  statusText: string;
  url: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  text: string;
}

/**
 * The frozen Response-like object `fetch` resolves with, built when the answer arrives, or what
 * `Object.freeze` threw. The body moves into the sandbox at once (its memory counts against the run);
 * the methods are host functions.
 */
function newResponse(
  vm: QuickJSContext,
  intrinsics: FetchIntrinsics,
  owned: QuickJSHandle[],
  answer: FetchAnswer,
): { value: QuickJSHandle; error?: undefined } | { error: QuickJSHandle } {
  const { headers: record, text } = answer;
  const names = Object.keys(record);
  // `newString` stops at a NUL character; a body holding one travels as JSON.
  let body: QuickJSHandle;
  if (text.includes('\u0000')) {
    const json = vm.newString(JSON.stringify(text));
    const parsed = vm.callFunction(intrinsics.parse, vm.undefined, json);
    json.dispose();
    body = vm.unwrapResult(parsed);
  } else {
    body = vm.newString(text);
  }
  owned.push(body);
  if (vm.typeof(body) !== 'string') throw new Error('fetch: the body does not fit');

  /** A header name the code passed, as `String(name).toLowerCase()`; undefined when reading it threw. */
  const nameOf = (handle: QuickJSHandle | undefined): string | { error: QuickJSHandle } => {
    const value = handle ?? vm.undefined;
    let asString = value;
    if (vm.typeof(value) !== 'string') {
      const stringFunction = vm.getProp(vm.global, 'String');
      const converted = vm.callFunction(stringFunction, vm.undefined, value);
      stringFunction.dispose();
      if (converted.error) return { error: converted.error };
      asString = converted.value;
    }
    const json = vm.callFunction(intrinsics.stringify, vm.undefined, asString);
    if (asString !== value) asString.dispose();
    if (json.error) return { error: json.error };
    const name = JSON.parse(vm.getString(json.value)) as string;
    json.value.dispose();
    return name.toLowerCase();
  };
  const has = (name: string) => Object.hasOwn(record, name);
  const iteratorOf = (items: QuickJSHandle[]): QuickJSHandle | { error: QuickJSHandle } => {
    const array = vm.newArray();
    try {
      items.forEach((item, index) => {
        vm.setProp(array, index, item);
      });
      const symbol = vm.getWellKnownSymbol('iterator');
      const method = vm.getProp(array, symbol);
      symbol.dispose();
      const iterator = vm.callFunction(method, array);
      method.dispose();
      return iterator.error ? { error: iterator.error } : iterator.value;
    } finally {
      for (const item of items) item.dispose();
      array.dispose();
    }
  };
  const settled = (outcome: { value: QuickJSHandle; error?: undefined } | { error: QuickJSHandle }) => {
    const deferred = vm.newPromise();
    const value = outcome.error ?? outcome.value;
    if (outcome.error) deferred.reject(value);
    else deferred.resolve(value);
    value.dispose();
    return deferred.handle;
  };

  const headers = vm.newObject();
  const response = vm.newObject();
  const define = (object: QuickJSHandle, key: string, value: QuickJSHandle) => {
    vm.setProp(object, key, value);
    value.dispose();
  };
  // The `Object.freeze` of the moment, as the code would call it.
  const objectConstructor = vm.getProp(vm.global, 'Object');
  const freeze = vm.getProp(objectConstructor, 'freeze');
  objectConstructor.dispose();
  try {
    define(
      headers,
      'get',
      newHostFunction(vm, 'get', 1, (name: QuickJSHandle | undefined) => {
        const key = nameOf(name);
        if (typeof key !== 'string') return key;
        return has(key) ? vm.newString(record[key]) : vm.null;
      }),
    );
    define(
      headers,
      'has',
      newHostFunction(vm, 'has', 1, (name: QuickJSHandle | undefined) => {
        const key = nameOf(name);
        if (typeof key !== 'string') return key;
        return has(key) ? vm.true : vm.false;
      }),
    );
    define(
      headers,
      'forEach',
      newHostFunction(vm, 'forEach', 1, (callback: QuickJSHandle | undefined) => {
        for (const name of names) {
          const value = vm.newString(record[name]);
          const key = vm.newString(name);
          const called = vm.callFunction(callback ?? vm.undefined, vm.undefined, value, key);
          value.dispose();
          key.dispose();
          if (called.error) return called;
          called.value.dispose();
        }
      }),
    );
    define(
      headers,
      'keys',
      vm.newFunction('keys', () => iteratorOf(names.map((name) => vm.newString(name)))),
    );
    define(
      headers,
      'entries',
      vm.newFunction('entries', () =>
        iteratorOf(
          names.map((name) => {
            const pair = vm.newArray();
            define(pair, '0', vm.newString(name));
            define(pair, '1', vm.newString(record[name]));
            return pair;
          }),
        ),
      ),
    );
    const frozenHeaders = vm.callFunction(freeze, vm.undefined, headers);
    if (frozenHeaders.error) {
      response.dispose();
      return frozenHeaders;
    }
    frozenHeaders.value.dispose();

    define(response, 'ok', answer.status >= 200 && answer.status < 300 ? vm.true : vm.false);
    define(response, 'status', vm.newNumber(answer.status));
    define(response, 'statusText', vm.newString(answer.statusText));
    define(response, 'url', vm.newString(answer.url));
    vm.setProp(response, 'headers', headers);
    define(
      response,
      'text',
      vm.newFunction('text', () => settled({ value: body.dup() })),
    );
    define(
      response,
      'json',
      vm.newFunction('json', () => settled(vm.callFunction(intrinsics.parse, vm.undefined, body))),
    );
    const frozen = vm.callFunction(freeze, vm.undefined, response);
    if (frozen.error) {
      response.dispose();
      return frozen;
    }
    frozen.value.dispose();
    return { value: response };
  } catch (error) {
    response.dispose();
    throw error;
  } finally {
    freeze.dispose();
    headers.dispose();
  }
}
