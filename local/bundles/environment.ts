/**
 * The environment of a function in bundle mode, from its synthesized template, so that a variable
 * CDK forgets to set is missing locally too:
 *
 * - a literal of the template is given as it is;
 * - a CloudFormation intrinsic (Ref, Fn::GetAtt, Fn::ImportValue, Fn::Join, a dynamic reference)
 *   is given the local emulators' value of the same variable; one the local emulators cannot supply stops
 *   the start, naming the variable and the function;
 * - then what the Lambda runtime sets itself (region, function name, task root, credentials), the
 *   local endpoints the SDK clients are pointed at, and the operator's settings of `npm start` that
 *   a deployment adds to its functions' configuration (never set by the CDK app).
 *
 * Nothing else of this process's environment reaches the function.
 */
import { functionSettings } from '../../catalog/settings';
import { switchNames } from '../../core/config/switches';
import { LOCAL_REGION } from '../emulators/constants';

export class TemplateEnvironmentError extends Error {
  readonly status = 500;
  constructor(message: string) {
    super(message);
    this.name = 'TemplateEnvironmentError';
  }
}

/**
 * Settings of the service that an operator sets on a deployment's functions (docs/operating.md):
 * passed on when `npm start`'s own environment has them. The CDK app sets none of them. The same
 * definitions the functions read them with (catalog/settings.ts), and the switches under both names.
 */
export const operatorSettings: readonly string[] = [
  ...Object.keys(functionSettings),
  ...switchNames.flatMap((name) => [name, `NEXT_PUBLIC_${name}`]),
];

export interface FunctionEnvironmentInput {
  functionId: string;
  /** `Environment.Variables` of the function's template resource. */
  template: Record<string, unknown>;
  /** The local emulators' value of each variable a template intrinsic stands for. */
  localValues: Record<string, string>;
  /** What the runtime and the local endpoints add (region, credentials, endpoints ...). */
  runtime: Record<string, string>;
  /** The operator's settings, from (normally) the local server's environment. */
  settings: Record<string, string | undefined>;
}

export function functionEnvironment(input: FunctionEnvironmentInput): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const name of operatorSettings) {
    const value = input.settings[name];
    if (value !== undefined) environment[name] = value;
  }
  for (const [name, value] of Object.entries(input.template)) {
    if (typeof value === 'string') {
      environment[name] = value;
      continue;
    }
    const local = input.localValues[name];
    if (local === undefined) {
      throw new TemplateEnvironmentError(
        `${input.functionId}: the template sets ${name} from ${JSON.stringify(value).slice(0, 120)}, which the local emulators have no value for`,
      );
    }
    environment[name] = local;
  }
  return { ...environment, ...input.runtime };
}

/** What the Lambda runtime sets in every function's environment (the parts the service can read). */
export function lambdaRuntimeVariables(options: {
  functionId: string;
  taskRoot: string;
  memoryInMb: number;
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** The local server's `PATH`. */
  path: string | undefined;
}): Record<string, string> {
  return {
    AWS_REGION: LOCAL_REGION,
    AWS_DEFAULT_REGION: LOCAL_REGION,
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
    AWS_LAMBDA_FUNCTION_NAME: options.functionId,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(options.memoryInMb),
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${options.functionId}`,
    AWS_LAMBDA_LOG_STREAM_NAME: 'local',
    AWS_ACCESS_KEY_ID: options.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: options.credentials.secretAccessKey,
    LAMBDA_TASK_ROOT: options.taskRoot,
    _HANDLER: 'index.handler',
    TZ: ':UTC',
    LANG: 'en_US.UTF-8',
    PATH: options.path ?? '/usr/local/bin:/usr/bin:/bin',
  };
}
