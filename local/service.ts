/**
 * The whole service on one machine: the embedded AWS stack, the execution state machine run
 * in-process, and the HTTP server. `npm start`, the integration tests and the benchmark use it.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { forgetAdminKey } from '../functions/http/admin-key';
import { idTokenVerifier } from '../functions/wiring/id-tokens';
import { overrideAdapters } from '../functions/wiring/overrides';
import { forgetEngineDeps } from '../functions/wiring/step';
import { guardedHttpClient } from '../functions/wiring/outbound';
import { LocalKeyWrapper } from '../adapters/kms/local-key-wrapper';
import { applyEnv, type LocalEmulatorsOptions, startLocalEmulators } from './emulators';
import { startScheduleFirer } from './emulators/schedule-firer';
import { moduleRoot } from './modules';
import { type Artifacts, prepareArtifacts } from './bundles/artifacts';
import { type BundleHost, startBundleHost } from './bundles/host';
import type { HandlersMode } from './bundles/mode';
import { loadLocalWorkers } from './workers';
import { exportVariables, localServerSetting, reloadFunctionSettings } from './settings';
import { switchesSetting } from '../functions/settings';
import { type LocalServer, startLocalServer } from './server';

export const repoRoot = moduleRoot;

export interface LocalServiceOptions {
  dataDir: string;
  port?: number;
  host?: string;
  /** Taken from ADMIN_API_KEY when not given; else generated once and kept in the data dir. */
  adminKey?: string;
  /**
   * Tests only: let outbound requests (api blocks, sandbox fetch, model base URLs) reach loopback,
   * where test servers listen. Everything else stays refused; `npm start` never sets it.
   */
  allowLoopbackOutbound?: boolean;
  /** Key files outside the data dir (see the local emulators); `npm start` takes them from ENVIRONMENT_KEY_FILE. */
  keyFiles?: LocalEmulatorsOptions['keyFiles'];
  /** Tests only: every Wait state of the state machine lasts this many milliseconds. */
  waitOverrideMs?: number;
  /** API Gateway's integration timeout of non-streaming routes (29 s); tests shorten it. */
  integrationTimeoutInMs?: number;
  /**
   * `bundles`: every route, worker and task is served by its Lambda artifact under dist/functions
   * (local/bundles), made first if the sources changed. Default `sources`: the handler modules.
   */
  handlers?: HandlersMode;
  /** With `bundles`: artifacts made already (tests), instead of making or checking them at start. */
  artifacts?: Artifacts;
}

export interface LocalService {
  url: string;
  /** With `handlers: 'bundles'`: the functions served from their artifacts (threads, cold starts). */
  bundles?: BundleHost;
  adminKey: string;
  dataDir: string;
  stop(): Promise<void>;
}

async function adminKeyFor(dataDir: string, given: string | undefined): Promise<string> {
  if (given) return given;
  const file = join(dataDir, 'admin-key');
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  const key = `adm_${randomBytes(24).toString('base64url')}`;
  await writeFile(file, key, { mode: 0o600 });
  return key;
}

export async function startLocalService(options: LocalServiceOptions): Promise<LocalService> {
  // Settings that cannot work are refused at start, not at a user's first request; tests change
  // them between starts of one process.
  reloadFunctionSettings();
  if (switchesSetting().ssoEnabled) idTokenVerifier();
  const dataDir = resolve(options.dataDir);
  await mkdir(dataDir, { recursive: true });
  const adminKey = await adminKeyFor(dataDir, options.adminKey ?? localServerSetting('ADMIN_API_KEY'));
  exportVariables({ ADMIN_API_KEY: adminKey });
  forgetAdminKey();
  const artifacts =
    options.handlers === 'bundles' ? (options.artifacts ?? (await prepareArtifacts())) : undefined;
  const stack = await startLocalEmulators({ dataDir, keyFiles: options.keyFiles });
  applyEnv(stack.env);
  let bundles: BundleHost | undefined;
  const workers = await loadLocalWorkers({
    root: repoRoot,
    queueUrls: stack.queueUrls,
    journalDir: join(dataDir, 'step-functions'),
    waitOverrideMs: options.waitOverrideMs,
    handlerOf: artifacts
      ? (worker) => (event) => (bundles as BundleHost).workerHandler(worker)(event)
      : undefined,
  });
  const scheduler = startScheduleFirer();
  overrideAdapters({
    executionStarter: workers.starter,
    scheduleRegistry: scheduler.registry,
    keyFileWrapper: LocalKeyWrapper.fromFile,
    http: options.allowLoopbackOutbound
      ? guardedHttpClient({ allowLoopback: true, maxRedirects: 5 })
      : undefined,
  });
  await forgetEngineDeps();
  let server: LocalServer;
  try {
    if (artifacts) {
      bundles = await startBundleHost({
        manifest: artifacts.manifest,
        artifactsDir: artifacts.dir,
        runtimeSdkDir: artifacts.nodeModulesDir,
        nodePath: artifacts.nodePath,
        stack,
        starter: workers.starter,
        adminKey,
        wakeScheduler: () => void scheduler.tick(),
        allowLoopbackOutbound: options.allowLoopbackOutbound,
      });
    }
    await workers.start();
    server = await startLocalServer({
      port: options.port ?? 3000,
      host: options.host,
      root: repoRoot,
      integrationTimeoutInMs: options.integrationTimeoutInMs,
      handlerOf: bundles?.routeHandler,
    });
  } catch (error) {
    await bundles?.stop();
    await scheduler.stop();
    await workers.stop();
    await stack.stop();
    throw error;
  }
  return {
    url: server.url,
    bundles,
    adminKey,
    dataDir,
    async stop() {
      await server.close();
      await scheduler.stop();
      // Queued jobs stay queued and running executions stay written down: the next start goes on.
      await workers.stop();
      await bundles?.stop();
      // The sandbox's worker threads go with the service (tests start several in one process).
      await forgetEngineDeps();
      await stack.stop();
    },
  };
}
