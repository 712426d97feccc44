// The bundle mode's stand-in for the Lambda Node.js runtime, run as the whole of one worker thread
// (one per function, ./function-host.ts). Plain CommonJS, as the runtime loads a CommonJS bundle: no
// TypeScript loader in this thread, so the bundle is loaded exactly as Lambda loads it.
//
// - Resolution is confined to the asset folder (LAMBDA_TASK_ROOT): a package or side file the
//   artifact lacks fails as it fails in Lambda, even though the project's node_modules is up the
//   tree. The one exception is the runtime's SDK (see `runtimeSdk` below).
// - `globalThis.awslambda` carries streamifyResponse and HttpResponseStream with the runtime's wire
//   contract: the prelude JSON, eight NUL bytes, then the body, sent to the host as it is written.
// - Messages from the host: {type:'invoke', id, event, context, streaming}. Answers: {type:'result',
//   id, result}, {type:'error', id, error:{errorType, errorMessage, trace}}, and for a streamed
//   invocation {type:'chunk', id, bytes} ... {type:'end', id}.
const Module = require('node:module');
const { isAbsolute, join, relative } = require('node:path');
const { Writable } = require('node:stream');
const { pathToFileURL } = require('node:url');
const { parentPort, workerData } = require('node:worker_threads');

const { taskRoot, handlerFile, runtimeSdkDir, hooksFile } = workerData;

const inside = (dir, file) => {
  const path = relative(dir, file);
  return path === '' || (!path.startsWith('..') && !isAbsolute(path));
};

// The runtime's SDK: the nodejs22.x runtime puts the AWS SDK for JavaScript v3 on NODE_PATH, and the
// bundles leave `@aws-sdk/*` out (lib/bundling.ts). Here NODE_PATH holds a link to the project's copy
// (./artifacts.ts), so a require of `@aws-sdk/*` from the asset may resolve into the project's
// node_modules, and what the SDK itself requires is not confined. Remove this when the SDK ships
// inside the artifacts.
const runtimeSdk = (request) => request.startsWith('@aws-sdk/');

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function confinedToTaskRoot(request, parent, isMain, options) {
  const resolved = resolveFilename.call(this, request, parent, isMain, options);
  if (Module.isBuiltin(resolved) || !parent?.filename || !inside(taskRoot, parent.filename)) return resolved;
  if (inside(taskRoot, resolved)) return resolved;
  if (runtimeSdk(request) && inside(runtimeSdkDir, resolved)) return resolved;
  const error = new Error(
    `Cannot find module '${request}' from ${relative(taskRoot, parent.filename)}: it is not in the function's artifact (${taskRoot})`,
  );
  error.code = 'MODULE_NOT_FOUND';
  throw error;
};
// `import()` of the bundles goes through the ES module resolver: the same rule, in hooks of this thread.
Module.register(pathToFileURL(hooksFile), { data: { taskRootUrl: pathToFileURL(taskRoot).href } });

// The SDK warns, once per thread, that its next versions need Node 22: Lambda runs nodejs22.x, where
// it does not, and 94 threads would repeat it.
const emitWarning = process.emitWarning.bind(process);
process.emitWarning = (warning, ...rest) => {
  if (String(warning?.message ?? warning).startsWith('NodeVersionSupportWarning')) return;
  emitWarning(warning, ...rest);
};

if ((process.env.NODE_OPTIONS ?? '').includes('--enable-source-maps')) process.setSourceMapsEnabled(true);

const streamingMark = Symbol.for('aws.lambda.runtime.handler.streaming');
const httpIntegrationType = 'application/vnd.awslambda.http-integration-response';

globalThis.awslambda = {
  streamifyResponse(handler) {
    handler[streamingMark] = 'response';
    return handler;
  },
  HttpResponseStream: {
    from(stream, prelude) {
      stream.setContentType(httpIntegrationType);
      stream.write(JSON.stringify(prelude));
      stream.write(new Uint8Array(8));
      return stream;
    },
  },
};

function errorOf(error) {
  const plain = error instanceof Error ? error : new Error(String(error));
  return {
    errorType: plain.name,
    errorMessage: plain.message,
    trace: String(plain.stack ?? '').split('\n'),
  };
}

let handler;
let initError;
try {
  const loaded = require(join(taskRoot, handlerFile));
  handler = loaded.handler;
  if (typeof handler !== 'function') throw new Error(`${handlerFile} exports no function named handler`);
} catch (error) {
  initError = error;
  if (error?.code === 'MODULE_NOT_FOUND') error.name = 'Runtime.ImportModuleError';
}

function contextOf(given) {
  return {
    ...given,
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, given.deadlineInMs - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

function responseStreamFor(id) {
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      parentPort.postMessage({ type: 'chunk', id, bytes: new Uint8Array(bytes) });
      callback();
    },
    final(callback) {
      parentPort.postMessage({ type: 'end', id });
      callback();
    },
  });
  stream.setContentType = (contentType) => parentPort.postMessage({ type: 'contentType', id, contentType });
  return stream;
}

parentPort.on('message', async (message) => {
  if (message.type !== 'invoke') return;
  const { id, event, streaming } = message;
  if (initError) return parentPort.postMessage({ type: 'error', id, error: errorOf(initError), init: true });
  try {
    const context = contextOf(message.context);
    if (streaming) {
      if (handler[streamingMark] !== 'response')
        throw new Error(
          'The route streams its answer but its handler is not wrapped in awslambda.streamifyResponse',
        );
      const stream = responseStreamFor(id);
      await handler(event, stream, context);
      if (!stream.writableEnded) stream.end();
      return;
    }
    const result = await handler(event, context);
    parentPort.postMessage({ type: 'result', id, result });
  } catch (error) {
    parentPort.postMessage({ type: 'error', id, error: errorOf(error) });
  }
});
parentPort.postMessage({ type: 'ready', initError: initError ? errorOf(initError) : undefined });
