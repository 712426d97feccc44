import { AsyncLocalStorage } from 'node:async_hooks';
import { Logger } from '@aws-lambda-powertools/logger';

type LoggerOptions = ConstructorParameters<typeof Logger>[0];

/** The settings Powertools reads from the environment when it makes a logger, as the root read them. */
interface PrintSettings {
  console: unknown;
  logIndentation: unknown;
}

/**
 * The logger of one invocation. Powertools makes every logger, children included, build a Console
 * of its own and read POWERTOOLS_DEV twice; the local server makes one per invocation, several per
 * run, and that cost about 130 µs each, more than the run's log entries. A child of the root takes
 * the console and indentation the root chose once for the process (the settings cannot change
 * within it); everything else is Powertools' own `createChild`, through its documented factory.
 */
class InvocationLogger extends Logger {
  protected override createLogger(options?: LoggerOptions): Logger {
    return new ChildLogger(options);
  }
}

class ChildLogger extends InvocationLogger {}

const root = new InvocationLogger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'workflow-service',
});
const rootSettings = root as unknown as PrintSettings;
const loggerMethods = Logger.prototype as unknown as Record<string, unknown>;
// Only while Powertools still sets these up in these two methods (the version is pinned; the
// logger tests print through a child); otherwise children make their own, as before.
if (typeof loggerMethods.setConsole === 'function' && typeof loggerMethods.setLogIndentation === 'function') {
  Object.defineProperties(ChildLogger.prototype, {
    setConsole: {
      value(this: PrintSettings) {
        this.console = rootSettings.console;
      },
    },
    setLogIndentation: {
      value(this: PrintSettings) {
        this.logIndentation = rootSettings.logIndentation;
      },
    },
  });
}
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
