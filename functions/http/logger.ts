import { AsyncLocalStorage } from 'node:async_hooks';
import { Logger } from '@aws-lambda-powertools/logger';

const root = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'workflow-service' });
const invocation = new AsyncLocalStorage<Logger>();

/**
 * The structured JSON logger of the current invocation. In Lambda one process serves one
 * invocation at a time, but the local server runs many handlers at once in one process, so each
 * invocation gets its own child logger and keys such as the execution id never cross between runs.
 */
export const logger: Logger = new Proxy(root, {
  get(target, property) {
    const current = invocation.getStore() ?? target;
    const value = Reflect.get(current, property, current);
    return typeof value === 'function' ? value.bind(current) : value;
  },
});

/** Runs one invocation with a logger of its own. */
export function withInvocationLogger<A extends unknown[], R>(handler: (...args: A) => Promise<R>) {
  return (...args: A): Promise<R> => invocation.run(root.createChild(), () => handler(...args));
}
