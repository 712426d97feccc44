/**
 * The execution state machine's definition checked against the Amazon States Language with
 * aws-local-stepfunctions (a devDependency: only the tests check it, the local emulators run the
 * definition with its own interpreter).
 */
import { renderExecutionDefinition } from '../../catalog/execution-definition';
import { DEFAULT_FUNCTION_ARN_PREFIX } from '../../local/emulators/step-functions';

/**
 * Validates the rendered definition against the Amazon States Language (asl-validator through
 * aws-local-stepfunctions), as the deployed machines must pass it. It is slow.
 */
export async function validateExecutionDefinition(
  functionArnPrefix = DEFAULT_FUNCTION_ARN_PREFIX,
): Promise<void> {
  installPromiseWithResolvers();
  const { StateMachine } = await import('aws-local-stepfunctions');
  const definition = renderExecutionDefinition({
    StepFunctionArn: `${functionArnPrefix}executionStep`,
    FinalizeFunctionArn: `${functionArnPrefix}executionFinalize`,
  });
  new StateMachine(definition as never);
}

/** aws-local-stepfunctions@3 needs `Promise.withResolvers`, which Node 20 lacks. Installed once, if missing. */
function installPromiseWithResolvers(): void {
  const promise = Promise as unknown as { withResolvers?: unknown };
  if (typeof promise.withResolvers === 'function') return;
  Object.defineProperty(Promise, 'withResolvers', {
    configurable: true,
    writable: true,
    value: function withResolvers<T>(this: PromiseConstructor) {
      let resolve!: (value: T | PromiseLike<T>) => void;
      let reject!: (reason?: unknown) => void;
      const promise = new this<T>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      return { promise, resolve, reject };
    },
  });
}
