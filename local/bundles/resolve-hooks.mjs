// ES module resolution hooks of one function's thread (./lambda-runtime.cjs registers them): an
// `import()` made by the function's own code must resolve inside its asset folder, as in Lambda,
// where nothing outside /var/task is found that way (not even the runtime's SDK, which is on
// NODE_PATH, a CommonJS-only search path).
let taskRootUrl;

export function initialize(data) {
  taskRootUrl = data.taskRootUrl.endsWith('/') ? data.taskRootUrl : `${data.taskRootUrl}/`;
}

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  const fromTask = context.parentURL?.startsWith(taskRootUrl);
  if (!fromTask || resolved.url.startsWith('node:') || resolved.url.startsWith(taskRootUrl)) return resolved;
  const error = new Error(
    `Cannot find package '${specifier}' imported from ${context.parentURL}: it is not in the function's artifact`,
  );
  error.code = 'ERR_MODULE_NOT_FOUND';
  throw error;
}
