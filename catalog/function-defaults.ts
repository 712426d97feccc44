/**
 * What a function of the route table gets when its entry names no memory or time-out: the CDK
 * stacks deploy it so, and the local server gives its handlers (and the cost model bills) the same.
 */
export const defaultMemoryInMb = 256;
export const defaultTimeoutInSeconds = 10;
/**
 * Every function's NODE_OPTIONS: stack traces name the sources, through the bundles' linked maps.
 * Node reads a module's map when it loads the module, so this is part of each cold start, and the
 * init benchmark (bench/bundle-init.ts) starts its probes with it too.
 */
export const functionNodeOptions = '--enable-source-maps';

/**
 * The time limits of a run's steps, which must agree with one another: both state machines run the
 * one definition (catalog/execution-definition.ts), and an Express execution (sync runs) ends, with
 * no Finalize and no log entry, when it reaches 5 minutes. So the Step task, then the Finalize task
 * and the retries' waits of both must fit in that, with room for the transitions.
 */
export const expressExecutionLimitInSeconds = 300;
/** The Step Lambda's time-out, and its Task's `TimeoutSeconds`. */
export const stepTimeoutInSeconds = 210;
/** The Finalize Lambda's time-out, and its Task's `TimeoutSeconds`. */
export const finalizeTimeoutInSeconds = 60;
/**
 * How long a step runs blocks before it checkpoints (`STEP_BUDGET_MS`): 30 s short of the Step
 * Lambda's time-out, for the checkpoint's writes and a cold start.
 */
export const defaultStepBudgetInMs = 180_000;
