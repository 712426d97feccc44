import { Logger } from '@aws-lambda-powertools/logger';
import type { MiddlewareObj } from '@middy/core';
import { optionalEnv } from '../../adapters/aws/require-env';

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

  /**
   * Ready for an invocation: none of the last one's keys, and `cold_start` true only on the
   * process's first invocation (Powertools keeps that flag per logger, so every new child said true).
   */
  startInvocation(coldStart: boolean): this {
    this.resetKeys();
    this.coldStart = coldStart;
    return this;
  }

  /** True the first time only: asked of the root, once per invocation. */
  isFirstInvocation(): boolean {
    return this.getColdStart();
  }
}

class ChildLogger extends InvocationLogger {}

const root = new InvocationLogger({
  serviceName: optionalEnv('POWERTOOLS_SERVICE_NAME') ?? 'workflow-service',
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
/**
 * The root logger, for code outside any invocation (start-up, the local emulators). Handlers log through
 * `loggerOf(context)`, so that the keys one invocation appends never reach another's lines. That
 * logger is handed down rather than found through an AsyncLocalStorage: on Node 20 a storage in use
 * makes every promise of the process pay for promise hooks, about a tenth of a millisecond per sync run.
 */
export const logger: Logger = root;

/** Each invocation's logger, by the Lambda context its handler is given (one object per invocation). */
const invocationLoggers = new WeakMap<object, InvocationLogger>();

/**
 * Loggers of ended invocations, for the next ones: making a child costs about 16 µs (Powertools
 * reads its settings and merges its options again), several times per run. At most as many as ever
 * ran at once are kept, up to `maxIdleLoggers`.
 */
const idleLoggers: InvocationLogger[] = [];
const maxIdleLoggers = 64;

/**
 * The logger of the invocation whose Lambda context this is: a child of the root made on the first
 * ask, so the keys one invocation appends (the execution id, the user) never reach another's lines,
 * though the local server runs many at once in one process. It is handed down explicitly rather than
 * found through an AsyncLocalStorage (see `logger`).
 */
export function loggerOf(context: object): Logger {
  return invocationLoggers.get(context) ?? newInvocationLogger(context);
}

function newInvocationLogger(context: object): InvocationLogger {
  const invocationLogger = (idleLoggers.pop() ?? (root.createChild() as InvocationLogger)).startInvocation(
    root.isFirstInvocation(),
  );
  invocationLoggers.set(context, invocationLogger);
  return invocationLogger;
}

/**
 * Middy middleware: the invocation's logger (`loggerOf(context)`) gets the Lambda context's fields
 * (request id, function name and version, cold start) and logs the event when
 * POWERTOOLS_LOGGER_LOG_EVENT asks, as Powertools' `injectLambdaContext` does for a shared logger.
 * When the invocation has ended (its answer or its error, after every later middleware), the logger
 * goes back for the next invocation, its keys cleared then: the handlers await all of their work, so
 * nothing of this invocation logs through it afterwards.
 */
export function logInvocation(): MiddlewareObj {
  const release = (request: { context: object }) => {
    const invocationLogger = invocationLoggers.get(request.context);
    if (!invocationLogger) return;
    invocationLoggers.delete(request.context);
    if (idleLoggers.length < maxIdleLoggers) idleLoggers.push(invocationLogger);
  };
  return {
    before(request) {
      // A new one even if this context object served an invocation before (tests reuse theirs).
      const invocationLogger = newInvocationLogger(request.context);
      invocationLogger.refreshSampleRateCalculation();
      Logger.injectLambdaContextBefore(invocationLogger, request.event, request.context);
    },
    after: release,
    onError: release,
  };
}
