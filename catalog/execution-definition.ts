/**
 * The execution state machine, one definition for the Express (sync) and Standard (async) machines
 * and for the local runner. `${StepFunctionArn}` and `${FinalizeFunctionArn}` are definition
 * substitutions: CDK fills them with the function ARNs, the local server with its own names.
 *
 * Start → Step → (done? → Finalize | waiting? → Wait → Step | Step); any failure → Finalize.
 */
import { workers } from './routes';

/** The worker (catalog/routes.ts) behind each Task, by the definition substitution that names it. */
export const taskWorkers = {
  StepFunctionArn: 'executionStep',
  FinalizeFunctionArn: 'executionFinalize',
} as const satisfies Record<string, keyof typeof workers>;

export const executionDefinitionSubstitutions = Object.keys(taskWorkers) as (keyof typeof taskWorkers)[];

/** The Lambda errors a Task retries: Lambda's own transient failures, never the function's. */
export const retriedLambdaErrors = [
  'Lambda.ServiceException',
  'Lambda.AWSLambdaException',
  'Lambda.SdkClientException',
  'Lambda.ClientExecutionTimeoutException',
  'Lambda.TooManyRequestsException',
] as const;

/**
 * Waits of 1, 2 and 4 s: at most 7 s per Task, which the time limits of catalog/function-defaults.ts
 * leave room for within an Express execution's 5 minutes.
 */
const lambdaRetry = [
  { ErrorEquals: [...retriedLambdaErrors], IntervalSeconds: 1, MaxAttempts: 3, BackoffRate: 2 },
];

export function executionDefinition(): Record<string, unknown> {
  return {
    Comment: 'Workflow run: steps until done, waiting where a wait block asks, then finalize',
    StartAt: 'Step',
    States: {
      Step: {
        Type: 'Task',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a Step Functions definition substitution, not a template
        Resource: '${StepFunctionArn}',
        ResultPath: '$.step',
        // The task gives up when its Lambda would, so a hung step reaches Finalize as States.Timeout.
        TimeoutSeconds: workers.executionStep.timeoutInSeconds,
        Retry: lambdaRetry,
        Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: 'Finalize' }],
        Next: 'Route',
      },
      Route: {
        Type: 'Choice',
        Choices: [
          { Variable: '$.step.status', StringEquals: 'done', Next: 'Finalize' },
          { Variable: '$.step.status', StringEquals: 'waiting', Next: 'Wait' },
        ],
        Default: 'Step',
      },
      Wait: {
        Type: 'Wait',
        SecondsPath: '$.step.waitSeconds',
        Next: 'Step',
      },
      Finalize: {
        Type: 'Task',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a Step Functions definition substitution, not a template
        Resource: '${FinalizeFunctionArn}',
        TimeoutSeconds: workers.executionFinalize.timeoutInSeconds,
        Retry: lambdaRetry,
        End: true,
      },
    },
  };
}

/** The definition with its substitutions filled in, as the local runner needs it. */
export function renderExecutionDefinition(
  values: Record<(typeof executionDefinitionSubstitutions)[number], string>,
): Record<string, unknown> {
  let text = JSON.stringify(executionDefinition());
  for (const [name, value] of Object.entries(values)) text = text.replaceAll('${' + name + '}', value);
  return JSON.parse(text);
}
