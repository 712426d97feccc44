/**
 * What each function's bundle carries, from esbuild's metafile with the deployed options: the AWS
 * SDK inside, in the versions of package-lock.json and one copy of each package, no package loaded
 * on demand inside, each function deployed with exactly the on-demand packages its bundle may load
 * installed beside it, the bundles within their sizes (cold start grows with a bundle's size), a
 * bundle that runs blocks serving the worker threads it starts from itself, the execute route's
 * streamed runs, a bundle of their own beside its index.js, deployed and loaded from there, each
 * function evaluating at its cold start only the SDK clients it calls there, and every bundle (one
 * of them built by NodejsFunction itself) taking its credentials from the environment only.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { builtinModules, createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { App, Stack } from 'aws-cdk-lib';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { build, type Metafile, type Plugin } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  acceptsIdToken,
  type RouteDefinition,
  routes,
  type WorkerDefinition,
  workers,
} from '../../catalog/routes';
import { streamRunFile } from '../../catalog/route-definition';
import {
  bundlingOf,
  esbuildBuildOptions,
  onDemandModules,
  onDemandSdkEntry,
  onDemandSdkFile,
  onDemandSdkModulesNamed,
} from '../../lib/bundling';
import { functionRuntime, type ServiceFunction } from '../../lib/constructs/service-function';
import { fromProjectRoot, projectRoot } from '../../lib/project';
import {
  bundleFunctionTo,
  bundleTo,
  entryPointsOf,
  executionStepBundleLimitInBytes,
  functionEntries,
  limitText,
  routeBundleLimitInBytes,
} from '../../scripts/bundle';
import { synthesizeApp } from './app';

const functions = [
  ...(routes as readonly RouteDefinition[]),
  ...(Object.values(workers) as WorkerDefinition[]),
];
/**
 * Each bundle by function id, and a function's streamed runs' bundle by `<id>/stream-run`: what
 * esbuild's metafile says of that output (its inputs, its imports) and its size.
 */
const built = new Map<string, { output: Metafile['outputs'][string]; bytes: number }>();
const streamRunBundleOf = (id: string) => `${id}/stream-run`;
const streamingFunctions = (routes as readonly RouteDefinition[]).filter(
  (route) => route.streamRunEntry !== undefined,
);

/**
 * The API routes still over their limit (`routeBundleLimitInBytes`), each with the most it may weigh
 * (its size when this list was last cut, rounded up): what they carry beyond the other routes is in
 * bench/BUNDLES.md. A route that comes within the limit fails here until it is taken off the list.
 */
const oversizedRoutes: Record<string, number> = {};

beforeAll(async () => {
  // Every bundle in one build, as `npm run build` makes them: the SDK is parsed once for all.
  const result = await build({
    ...esbuildBuildOptions,
    absWorkingDir: projectRoot,
    entryPoints: entryPointsOf(functionEntries()),
    outdir: 'out',
    write: false,
    metafile: true,
    logLevel: 'error',
  });
  for (const [path, output] of Object.entries(result.metafile.outputs)) {
    const bundle = /^out\/(.+?)(?:\/index)?\.js$/.exec(path)?.[1];
    if (bundle) built.set(bundle, { output, bytes: output.bytes });
  }
}, 600_000);

const everyOnDemandPackage: string[] = Object.values(onDemandModules).flat();
/**
 * The SDK's credential sources other than the environment (SSO, ini files, processes, web identity,
 * instance metadata): adapters/aws/lambda-credentials.ts stands in for the chain.
 */
const otherCredentialSource =
  /node_modules\/@(?:aws-sdk\/credential-provider-(?!env\/)[^/]+|smithy\/credential-provider-imds)\//;
/**
 * The STS, SSO and SSO-OIDC clients those sources bring. Only the Bedrock side file keeps the
 * SSO-OIDC client, through the token providers of Bedrock's API keys, loaded with a run's first
 * Bedrock call rather than at a cold start.
 */
const stsOrSsoClients = /node_modules\/@aws-sdk\/nested-clients\//;

const packageOf = (path: string) =>
  path.startsWith('@') ? path.split('/').slice(0, 2).join('/') : path.split('/')[0];
const isOnDemand = (path: string) =>
  everyOnDemandPackage.some((name) => path === name || path.includes(`node_modules/${name}/`));

/**
 * The packages a function's bundles (its handler's, and its streamed runs' where it has one) load
 * from beside them: their externals but Node's own and the side files (`./on-demand/*.js`).
 */
function reachedPackages(id: string): string[] {
  const names = [id, streamRunBundleOf(id)]
    .flatMap((bundle) => built.get(bundle)?.output.imports ?? [])
    .filter((imported) => imported.external && !imported.path.startsWith('./'))
    .map((imported) => packageOf(imported.path))
    .filter((name) => !name.startsWith('node:') && !builtinModules.includes(name));
  return [...new Set(names)].sort();
}

describe('function bundles', () => {
  it('never carry a package loaded on demand inside', () => {
    for (const [id, { output }] of built) {
      // Assess
      expect(Object.keys(output.inputs).filter(isOnDemand), id).toEqual([]);
    }
  });

  it("never carry the local emulators' metering of SDK calls, which only the cost model reads", () => {
    for (const [id, { output }] of built) {
      // Assess
      expect(output.inputs['adapters/metering.ts']?.bytesInOutput ?? 0, id).toBe(0);
    }
  });

  /**
   * One copy of each package version: two versions of a package are carried only where
   * package-lock.json holds both (client-bedrock-runtime pins a token-providers of its own).
   */
  it('carry the AWS SDK inside, in the versions package-lock.json names, one copy of each', async () => {
    // Prepare
    const lock = JSON.parse(await readFile(fromProjectRoot('package-lock.json'), 'utf8')) as {
      packages: Record<string, { version?: string }>;
    };
    const installedVersion = async (folder: string) =>
      (
        JSON.parse(await readFile(fromProjectRoot(join(folder, 'package.json')), 'utf8')) as {
          version: string;
        }
      ).version;

    for (const [id, { output }] of built) {
      // Act: the folder (as package-lock.json keys it) of every SDK package the bundle takes code from
      const folders = new Set(
        Object.keys(output.inputs)
          .map((path) => /^((?:.*\/)?node_modules\/@(?:aws-sdk|smithy)\/[^/]+)\//.exec(path)?.[1])
          .filter((folder): folder is string => folder !== undefined),
      );

      // Assess
      expect(folders.size, id).toBeGreaterThan(0);
      const versions = [...folders].map(
        (folder) => `${folder.replace(/^.*node_modules\//, '')}@${lock.packages[folder]?.version}`,
      );
      expect(versions.length, `${id}: one copy of each SDK package version`).toBe(new Set(versions).size);
      for (const folder of folders) {
        expect(lock.packages[folder]?.version, `${id}: ${folder}`).toBeDefined();
        expect(await installedVersion(folder), `${id}: ${folder}`).toBe(lock.packages[folder]?.version);
      }
    }
  });

  it("take AWS credentials from the environment, where Lambda puts them, and carry no other link of the SDK's chain", () => {
    for (const [id, { output }] of built) {
      // Assess
      const inputs = Object.keys(output.inputs);
      expect(
        inputs.filter((path) => otherCredentialSource.test(path) || stsOrSsoClients.test(path)),
        id,
      ).toEqual([]);
      if (inputs.some((path) => /node_modules\/@aws-sdk\/client-[^/]+\//.test(path))) {
        expect(inputs, id).toContain('adapters/aws/lambda-credentials.ts');
      }
    }
  });

  it('load from beside them only packages loaded on demand, never the AWS SDK', () => {
    for (const fn of functions) {
      // Assess
      expect(
        reachedPackages(fn.id).filter((name) => !everyOnDemandPackage.includes(name)),
        fn.id,
      ).toEqual([]);
    }
  });

  it.each(routes.filter((route) => !(route.id in oversizedRoutes)).map((route) => [route.id]))(
    `%s weighs at most ${limitText(routeBundleLimitInBytes)}, the AWS SDK it uses included`,
    (id) => {
      // Assess
      expect(built.get(id)?.bytes).toBeLessThanOrEqual(routeBundleLimitInBytes);
    },
  );

  it.each(Object.entries(oversizedRoutes))(
    '%s, still over the limit, stays within %i KB',
    (id, ceilingInKb) => {
      // Assess: over the limit (else it belongs with the others), and no heavier than it was
      const bytes = built.get(id)?.bytes ?? 0;
      expect(bytes).toBeGreaterThan(routeBundleLimitInBytes);
      expect(bytes).toBeLessThanOrEqual(ceilingInKb * 1024);
    },
  );

  it.each(streamingFunctions.map((route) => [route.id]))(
    "%s's streamed runs are a bundle of their own: the engine is not in the handler's",
    (id) => {
      // Assess
      const carriesEngine = (bundle: string) =>
        Object.keys(built.get(bundle)?.output.inputs ?? {}).some((path) =>
          path.startsWith('core/engine/run'),
        );
      expect(carriesEngine(streamRunBundleOf(id))).toBe(true);
      expect(carriesEngine(id)).toBe(false);
    },
  );

  it(`executionStep weighs at most ${limitText(executionStepBundleLimitInBytes)} without what it loads on demand`, () => {
    // Assess
    expect(built.get('executionStep')?.bytes).toBeLessThanOrEqual(executionStepBundleLimitInBytes);
  });
});

describe('the CDK app', () => {
  /** Every function of a synthesized app, by catalog id. */
  function deployedFunctions(context: Record<string, unknown>): Map<string, ServiceFunction> {
    const { stacks } = synthesizeApp(context);
    return new Map<string, ServiceFunction>([
      ...Object.values(stacks.routes).flatMap((stack) => Object.entries(stack.functions)),
      ...Object.entries(stacks.execution.workers),
    ]);
  }
  const installedBeside = (fn: ServiceFunction | undefined) => [...(fn?.bundling.nodeModules ?? [])].sort();
  /**
   * What a function's bundle may load on demand: jose only where ID tokens are taken (`singleSignOn`),
   * and ipaddr.js, which every route reaches through the ID token verifier's issuer check, only where
   * addresses are checked: outbound requests, or ID tokens taken.
   */
  const loadedOnDemand = (fn: RouteDefinition | WorkerDefinition, singleSignOn: boolean) => {
    const takesIdTokens = singleSignOn && 'auth' in fn && acceptsIdToken(fn);
    const checksAddresses = takesIdTokens || fn.runsBlocks === true || fn.makesOutboundRequests === true;
    const among = (modules: readonly string[], name: string) => modules.includes(name);
    return reachedPackages(fn.id).filter(
      (name) =>
        (!among(onDemandModules.singleSignOn, name) || takesIdTokens) &&
        (!among(onDemandModules.outboundRequests, name) || checksAddresses),
    );
  };

  it('installs beside each function exactly what its bundle loads on demand, jose nowhere', () => {
    // Act
    const deployed = deployedFunctions({});

    // Assess
    expect(deployed.size).toBe(functions.length);
    for (const fn of functions) {
      expect(installedBeside(deployed.get(fn.id)), fn.id).toEqual(loadedOnDemand(fn, false));
    }
  });

  it('with single sign-on, also installs jose beside every route that takes ID tokens', () => {
    // Act
    const deployed = deployedFunctions({
      ssoEnabled: 'true',
      ssoDomainPrefix: 'acme-workflows',
      ssoCallbackUrls: 'https://app.acme.example/callback',
      ssoOidcName: 'AcmeOidc',
      ssoOidcIssuer: 'https://login.acme.example',
      ssoOidcClientId: 'cognito-federation',
      ssoOidcClientSecretName: 'acme/oidc-client-secret',
    });

    // Assess
    for (const fn of functions) {
      expect(installedBeside(deployed.get(fn.id)), fn.id).toEqual(loadedOnDemand(fn, true));
    }
    expect(installedBeside(deployed.get('listWorkflows'))).toContain('jose');
  });

  it("bundles a function as its NodejsFunction does, the environment's credentials in place of the SDK's chain", async () => {
    // Prepare: getHealth's function, with the bundling the app gives it and esbuild really run
    const health = (routes as readonly RouteDefinition[]).find((route) => route.id === 'getHealth')!;
    const app = new App({ autoSynth: false });
    new NodejsFunction(new Stack(app, 'BundlingCheck'), 'Health', {
      entry: fromProjectRoot(health.entry),
      projectRoot,
      depsLockFilePath: fromProjectRoot('package-lock.json'),
      runtime: functionRuntime,
      bundling: bundlingOf(health),
    });

    // Act
    const assembly = app.synth();
    // The app's one function asset: the folder NodejsFunction bundled into.
    const assets = (await readdir(assembly.directory)).filter((name) =>
      existsSync(join(assembly.directory, name, 'index.js.map')),
    );
    const { sources } = JSON.parse(
      await readFile(join(assembly.directory, assets[0], 'index.js.map'), 'utf8'),
    ) as { sources: string[] };

    // Assess
    expect(assets).toHaveLength(1);
    expect(sources.some((source) => source.endsWith('adapters/aws/lambda-credentials.ts'))).toBe(true);
    expect(sources.filter((source) => otherCredentialSource.test(source))).toEqual([]);
    expect(sources.some((source) => source.includes('@aws-sdk/client-dynamodb/'))).toBe(true);
  }, 120_000);

  it("builds the execute route's streamed runs into its asset beside index.js, and nothing into another's", async () => {
    // Prepare
    const deployed = deployedFunctions({});
    const assetDir = await mkdtemp(join(tmpdir(), 'execute-asset-'));

    // Act: the hooks NodejsFunction runs after its own esbuild, as it runs them (bash, in the project)
    const commands =
      deployed.get('executeWorkflow')?.bundling.commandHooks?.afterBundling(projectRoot, assetDir) ?? [];
    for (const command of commands) execFileSync('bash', ['-c', command], { cwd: projectRoot });

    // Assess
    expect(existsSync(join(assetDir, streamRunFile))).toBe(true);
    const sourceMap = JSON.parse(await readFile(join(assetDir, `${streamRunFile}.map`), 'utf8')) as {
      sources: string[];
    };
    expect(sourceMap.sources.some((source) => source.endsWith('functions/workflows/stream-run.ts'))).toBe(
      true,
    );
    expect(sourceMap.sources.some((source) => source.endsWith('core/engine/run.ts'))).toBe(true);
    const others = functions.filter((fn) => fn.id !== 'executeWorkflow');
    const buildsStreamedRuns = (fn: RouteDefinition | WorkerDefinition) =>
      (deployed.get(fn.id)?.bundling.commandHooks?.afterBundling(projectRoot, assetDir) ?? []).some(
        (command) => command.includes(`--outfile=${assetDir}/${streamRunFile}`),
      );
    expect(others.filter(buildsStreamedRuns).map((fn) => fn.id)).toEqual([]);
    await rm(assetDir, { recursive: true, force: true });
  }, 120_000);

  it.each([
    ['createNotification', ['kms.js', 's3.js', 'secrets-manager.js']],
    ['getHealth', []],
    ['executionStep', ['bedrock-runtime.js', 'kms.js', 's3.js']],
  ])(
    "builds into %s's asset the side files of the SDK clients its bundle imports on demand, and no other",
    async (id, expected) => {
      // Prepare: the asset as NodejsFunction leaves it before the hooks, with its index.js
      const deployed = deployedFunctions({});
      const fn = functions.find((candidate) => candidate.id === id) as RouteDefinition | WorkerDefinition;
      const assetDir = await mkdtemp(join(tmpdir(), `${id}-asset-`));
      const imported = await bundleTo(fn.entry, join(assetDir, 'index.js'));

      // Act
      const commands = deployed.get(id)?.bundling.commandHooks?.afterBundling(projectRoot, assetDir) ?? [];
      for (const command of commands) execFileSync('bash', ['-c', command], { cwd: projectRoot });

      // Assess
      const sideFiles = existsSync(join(assetDir, 'on-demand'))
        ? (await readdir(join(assetDir, 'on-demand'))).filter((file) => file.endsWith('.js')).sort()
        : [];
      expect(sideFiles).toEqual(expected);
      for (const file of sideFiles) {
        const { sources } = JSON.parse(
          await readFile(join(assetDir, 'on-demand', `${file}.map`), 'utf8'),
        ) as {
          sources: string[];
        };
        expect(
          sources.filter((source) => otherCredentialSource.test(source)),
          file,
        ).toEqual([]);
        expect(
          sources.some((source) => source.endsWith('adapters/aws/lambda-credentials.ts')),
          file,
        ).toBe(true);
      }
      expect(
        onDemandSdkModulesNamed(imported)
          .map((name) => `${name}.js`)
          .sort(),
      ).toEqual(expected);
      await rm(assetDir, { recursive: true, force: true });
    },
    120_000,
  );
});

describe('a bundle that runs blocks, started as a worker of its own', () => {
  const outDir = fromProjectRoot('dist/test-bundles');
  const blockRunners = functions.filter((fn) => fn.runsBlocks).map((fn) => [fn.id]);

  /**
   * The function's bundles as deployed, beside a package.json that makes them CommonJS; resolves to
   * the one that runs blocks (a streaming route's streamed runs' bundle, else its index.js).
   */
  async function bundleOf(id: string): Promise<string> {
    const fn = functions.find((candidate) => candidate.id === id) as RouteDefinition | WorkerDefinition;
    const dir = join(outDir, id);
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    await writeFile(join(outDir, 'package.json'), '{"type": "commonjs"}\n');
    const streamRunEntry = 'streamRunEntry' in fn ? fn.streamRunEntry : undefined;
    const outfile = await bundleFunctionTo({ id, entry: fn.entry, streamRunEntry }, dir);
    return streamRunEntry ? join(dir, streamRunFile) : outfile;
  }

  function firstAnswer(worker: Worker): Promise<unknown> {
    return new Promise<unknown>((resolve, reject) => {
      worker.once('message', (message) => {
        void worker.terminate();
        resolve(message);
      });
      worker.once('error', reject);
      worker.once('exit', () => resolve('exited without answering'));
    });
  }

  it.each(blockRunners)(
    '%s reads a document in the worker thread it starts from itself',
    async (id) => {
      // Prepare
      const outfile = await bundleOf(id);

      // Act
      const answer = await firstAnswer(
        new Worker(outfile, {
          workerData: {
            role: 'document-reader',
            bytes: new Uint8Array(Buffer.from('a,b\n1,2')),
            name: 'a.csv',
            type: 'text/csv',
          },
        }),
      );

      // Assess
      expect(answer).toEqual({ ok: true, reading: { type: 'text/csv', text: 'a, b\n1, 2' } });
    },
    60_000,
  );

  it.each(blockRunners)(
    '%s runs a function in the sandbox worker it starts from itself',
    async (id) => {
      // Prepare
      const outfile = await bundleOf(id);
      const worker = new Worker(outfile, {
        workerData: {
          role: 'workflow-sandbox-worker',
          interrupt: new SharedArrayBuffer(4),
          ready: new SharedArrayBuffer(4),
        },
      });
      const answered = firstAnswer(worker);

      // Act
      worker.postMessage({
        type: 'run',
        runId: 1,
        code: 'return 6 * 7',
        timeoutInMs: 5000,
        memoryLimitInBytes: 64 * 1024 * 1024,
        withFetch: false,
      });

      // Assess
      expect(await answered).toMatchObject({ type: 'done', runId: 1, result: 42 });
    },
    60_000,
  );
});

describe("the execute route's bundle", () => {
  it('loads its streamed runs from the stream-run.js beside it on the first streamed run', async () => {
    // Prepare
    const dir = fromProjectRoot('dist/test-bundles/executeWorkflow-loader');
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    await writeFile(fromProjectRoot('dist/test-bundles/package.json'), '{"type": "commonjs"}\n');
    const route = routes.find((candidate) => candidate.id === 'executeWorkflow') as RouteDefinition;
    const index = await bundleFunctionTo(route, dir);
    const require = createRequire(import.meta.url);
    const handler = require(index) as { loadStreamedRuns(): Promise<{ runStreamed: unknown }> };
    const streamRun = join(dir, streamRunFile);
    const loadedBefore = streamRun in require.cache;

    // Act
    const loaded = await handler.loadStreamedRuns();

    // Assess
    expect(loadedBefore).toBe(false);
    expect(typeof loaded.runStreamed).toBe('function');
    expect(streamRun in require.cache).toBe(true);
  }, 60_000);
});

describe("a function's cold start", () => {
  /**
   * Marks the module that defines each SDK client (and the presigner): when a bundle evaluates it,
   * the package's name is pushed to `globalThis.sdkPackagesEvaluated`. Only this line is added to
   * the deployed build: what the bundle carries, and when it evaluates what, are unchanged.
   */
  const markEvaluatedSdkPackages: Plugin = {
    name: 'mark-evaluated-sdk-packages',
    setup(build) {
      const marked =
        /node_modules\/(@aws-sdk\/(?:(?:client|lib)-[^/]+\/dist-es\/[A-Za-z0-9]+Client|s3-request-presigner\/dist-es\/getSignedUrl))\.js$/;
      build.onLoad({ filter: marked }, async ({ path }) => {
        const name = /(@aws-sdk\/[^/]+)\/dist-es\//.exec(path)?.[1];
        return {
          contents: `${await readFile(path, 'utf8')}\n;(globalThis.sdkPackagesEvaluated ??= []).push(${JSON.stringify(name)});\n`,
          loader: 'js',
        };
      });
    },
  };

  /**
   * Bundles `entry` as deployed, with the SDK clients marked, into dist/test-bundles/<name>/index.js,
   * and the side files it imports on demand beside it, marked too.
   */
  async function markedBundleOf(name: string, entry: string): Promise<string> {
    const dir = fromProjectRoot(`dist/test-bundles/${name}`);
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    await writeFile(fromProjectRoot('dist/test-bundles/package.json'), '{"type": "commonjs"}\n');
    const markedBuild = async (source: string, outfile: string) => {
      const { metafile } = await build({
        ...esbuildBuildOptions,
        absWorkingDir: projectRoot,
        entryPoints: [fromProjectRoot(source)],
        outfile,
        plugins: [markEvaluatedSdkPackages],
        metafile: true,
        logLevel: 'error',
      });
      return Object.values(metafile.outputs).flatMap((output) =>
        output.imports.map((imported) => imported.path),
      );
    };
    const outfile = join(dir, 'index.js');
    const imported = await markedBuild(entry, outfile);
    for (const sideModule of onDemandSdkModulesNamed(imported)) {
      await markedBuild(onDemandSdkEntry(sideModule), join(dir, onDemandSdkFile(sideModule)));
    }
    return outfile;
  }

  /** Runs `probe` in a fresh Node process with the bundle's path as its argument; resolves to what it prints, parsed. */
  function inFreshProcess(probe: string, bundle: string): unknown {
    const output = execFileSync(process.execPath, ['-e', probe, bundle], {
      env: { ...process.env, AWS_SDK_JS_SUPPRESS_WARNINGS: '1', POWERTOOLS_LOG_LEVEL: 'SILENT' },
    });
    return JSON.parse(output.toString());
  }

  /**
   * The AWS SDK client packages a fresh Node process has evaluated once it has required the
   * function's bundle, and the SDK files it has read from outside the bundle (none: the SDK is inside).
   */
  async function sdkAtInit(id: string): Promise<{ evaluated: string[]; requiredOutside: string[] }> {
    const fn = functions.find((candidate) => candidate.id === id) as RouteDefinition | WorkerDefinition;
    const index = await markedBundleOf(`${id}-init`, fn.entry);
    const probe = `require(process.argv[1]);
      process.stdout.write(JSON.stringify({
        evaluated: [...new Set(globalThis.sdkPackagesEvaluated ?? [])].sort(),
        requiredOutside: Object.keys(require.cache).filter((path) => /@aws-sdk|@smithy/.test(path)),
      }));`;
    return inFreshProcess(probe, index) as { evaluated: string[]; requiredOutside: string[] };
  }

  it.each([
    ['getHealth'],
    ['listWorkflows'],
    ['listWebhooks'],
    ['adminUpdateOrganization'],
    ['executionStep'],
  ])(
    '%s evaluates only the DynamoDB client at init, from its own bundle: S3, KMS, Secrets Manager and Bedrock come with their first call',
    async (id) => {
      // Act
      const atInit = await sdkAtInit(id);

      // Assess
      expect(atInit).toEqual({
        evaluated: ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb'],
        requiredOutside: [],
      });
    },
    60_000,
  );

  it('evaluates an on-demand SDK client with its first call, from the side file beside the bundle, never from outside', async () => {
    // Prepare
    const index = await markedBundleOf('sdk-on-demand', 'adapters/aws/sdk-on-demand.ts');
    const probe = `const loaders = require(process.argv[1]);
      const before = [...(globalThis.sdkPackagesEvaluated ?? [])];
      Promise.all([loaders.loadS3Sdk(), loaders.loadS3Presigner(), loaders.loadKmsSdk(), loaders.loadSecretsManagerSdk(), loaders.loadBedrockSdk()]).then(([s3, presigner, kms, secrets, bedrock]) => {
        process.stdout.write(JSON.stringify({
          before,
          classes: [typeof s3.S3Client, typeof presigner.getSignedUrl, typeof kms.KMSClient, typeof secrets.SecretsManagerClient, typeof bedrock.BedrockRuntimeClient],
          evaluated: globalThis.sdkPackagesEvaluated,
          requiredOutside: Object.keys(require.cache).filter((path) => /@aws-sdk|@smithy/.test(path)),
        }));
      });`;

    // Act
    const output = inFreshProcess(probe, index) as Record<string, unknown>;

    // Assess
    expect(output.before).toEqual([]);
    expect(output.classes).toEqual(['function', 'function', 'function', 'function', 'function']);
    expect([...(output.evaluated as string[])].sort()).toEqual([
      '@aws-sdk/client-bedrock-runtime',
      '@aws-sdk/client-kms',
      '@aws-sdk/client-s3',
      '@aws-sdk/client-secrets-manager',
      '@aws-sdk/s3-request-presigner',
    ]);
    expect(output.requiredOutside).toEqual([]);
  }, 60_000);

  it('runWorkflow evaluates DynamoDB and Step Functions at init, which every run calls, and not S3', async () => {
    expect((await sdkAtInit('runWorkflow')).evaluated).toEqual([
      '@aws-sdk/client-dynamodb',
      '@aws-sdk/client-sfn',
      '@aws-sdk/lib-dynamodb',
    ]);
  }, 60_000);
});
