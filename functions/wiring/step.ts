/** Wiring of the Step worker: kept apart so only its bundle carries the engine, sandbox and model SDKs. */
import { createDocumentReader } from '../../adapters/files/document-reader';
import { fileAccess } from '../../core/files/block-access';
import { fileDeps } from './files';
import { DynamoCheckpointStore } from '../../adapters/dynamodb/checkpoint-store';
import { fetchThrough } from '../../adapters/http/fetch';
import { modelBaseUrlsFrom } from '../../adapters/llm/endpoints';
import { createModelGateway } from '../../adapters/llm/gateway';
import { createSandboxPool, type SandboxPool } from '../../adapters/sandbox/pool';
import type { EngineDeps } from '../../core/engine/types';
import type { HttpClient } from '../../core/net/http';
import {
  defaultFunctionMaxTimeoutInMs,
  defaultFunctionMemoryLimitInBytes,
} from '../../core/engine/blocks/function';
import { loadEnvironment } from '../../core/environment/service';
import type { StepDeps } from '../../core/runs/service';
import { pricingTableFrom } from '../../core/llm/pricing';
import { deployedWorkflowLoader } from '../../core/workflows/loader';
import { environmentDeps } from './environment';
import { deploymentReader } from './deployments';
import { syncBudgetInMs } from './sync-budget';
import { overrides } from './overrides';
import { blobStore } from './storage';
import { workflowDeps } from './workflows';
import { optionalEnv } from '../../adapters/aws/require-env';
import { setting } from '../settings';
import { guardedHttpClient } from './outbound';

/** A step hands back to the state machine well before the Lambda's own time-out (`STEP_BUDGET_MS`). */
export function stepBudgetInMs(): number {
  return setting('STEP_BUDGET_MS');
}

/** Settings of runs that a deployment may change through its environment (docs/operating.md). */
function engineSettings(): Pick<EngineDeps, 'functionMaxTimeoutInMs' | 'limits'> {
  const ceiling = setting('FUNCTION_MAX_TIMEOUT_MS') ?? defaultFunctionMaxTimeoutInMs;
  return {
    // A function may not outlast the step that runs it.
    functionMaxTimeoutInMs: Math.min(ceiling, stepBudgetInMs()),
    limits: {
      maxBlockOutputBytes: setting('MAX_BLOCK_OUTPUT_BYTES'),
      maxRunOutputBytes: setting('MAX_RUN_OUTPUT_BYTES'),
    },
  };
}

/** Model answers from a user-given base URL may be long; the SDK's own time-out still applies. */
const modelFetchLimits = { timeoutInMs: 15 * 60_000, maxResponseBytes: 20 * 1024 * 1024 };

let engine: EngineDeps | undefined;
let sandbox: SandboxPool | undefined;

/** Built once per process: the sandbox module, SDK clients and price table are costly to make. */
function engineDeps(): EngineDeps {
  if (engine) return engine;
  // Production always uses the strict guard; only the local test service may override it.
  const http: HttpClient = overrides.http ?? guardedHttpClient({ maxRedirects: 5 });
  sandbox = createSandboxPool({
    size: setting('SANDBOX_WORKERS'),
    // A Lambda invocation serves one run, of one workspace: there is no one to share its pool with.
    maxBusyPerWorkspace:
      setting('SANDBOX_WORKERS_PER_WORKSPACE') ??
      (optionalEnv('AWS_LAMBDA_FUNCTION_NAME') ? Number.MAX_SAFE_INTEGER : undefined),
    // A run's memory limit, plus room for the runtime and the next run's prepared sandbox.
    heapLimitInBytes: defaultFunctionMemoryLimitInBytes + 32 * 1024 * 1024,
  });
  engine = {
    ...engineSettings(),
    codeRunner: sandbox,
    now: () => Date.now(),
    http,
    models:
      overrides.models ??
      createModelGateway({
        fetch: fetchThrough(http, modelFetchLimits),
        baseUrls: modelBaseUrlsFrom({
          OPENAI_BASE_URL: setting('OPENAI_BASE_URL'),
          ANTHROPIC_BASE_URL: setting('ANTHROPIC_BASE_URL'),
        }),
      }),
    pricing: pricingTableFrom(setting('MODEL_PRICES_JSON')),
    files: fileAccess({ ...fileDeps(), http }, createDocumentReader()),
    workflows: deployedWorkflowLoader({
      getWorkflow: (id) => workflowDeps().workflows.getWorkflow(id),
      getDeployment: (id, version) => deploymentReader().getDeployment(id, version),
    }),
  };
  return engine;
}

export function stepDeps(): StepDeps {
  return {
    deployments: deploymentReader(),
    checkpoints: DynamoCheckpointStore.fromEnv({ blobStore: blobStore() }),
    engine: engineDeps(),
    budgetInMs: stepBudgetInMs(),
    syncBudgetInMs: syncBudgetInMs(),
    drafts: { getWorkflow: (id) => workflowDeps().workflows.getWorkflow(id) },
    environmentOf: (workspaceId) => loadEnvironment(environmentDeps(), workspaceId),
  };
}

/** The local service replaces overrides between starts (tests); the next step rebuilds. */
export async function forgetEngineDeps(): Promise<void> {
  const closing = sandbox?.close();
  engine = undefined;
  sandbox = undefined;
  await closing;
}
