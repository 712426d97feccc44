/**
 * The service on http://localhost:3000 with demo data. `npm start` runs this module compiled
 * (scripts/start.mjs), in the process whose id the ready line prints: SIGINT or SIGTERM to it stops
 * the service (servers, workers, emulators) and ends the process.
 */
import { consolePrefix } from '../console/site';
import { switchesSetting } from '../functions/settings';
import { startLocalService } from './service';
import { ensureDemoData } from './seed';
import { type LocalSettings, loadLocalSettings } from './settings';
import { optionalEnv } from '../adapters/aws/require-env';

const startedAt = Date.now();
// Refused before anything starts: a typo (LOCAL_HANDLERS=lambdas, SYNC_BUDGET_MS=abc) must not
// quietly serve the sources or fail a user's first run.
let settings: LocalSettings;
try {
  settings = loadLocalSettings();
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
const { server } = settings;
const service = await startLocalService({
  dataDir: server.DATA_DIR,
  port: server.PORT,
  host: server.HOST,
  adminKey: server.ADMIN_API_KEY,
  keyFiles: { environment: server.ENVIRONMENT_KEY_FILE },
  handlers: server.LOCAL_HANDLERS,
});
/**
 * Listened for before the ready line is printed, so that a Ctrl-C right after it stops the service
 * gracefully rather than killing the process. A terminal's Ctrl-C signals its whole process group,
 * and npm passes the signal on to the server too: one Ctrl-C arrives twice, close together. Only a
 * signal this long after the first is a second Ctrl-C.
 */
const repeatedSignalInMs = 1_000;
let stoppingSince: number | undefined;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    // A second signal while stopping (a second Ctrl-C) ends the process at once.
    if (stoppingSince !== undefined) {
      if (Date.now() - stoppingSince >= repeatedSignalInMs) process.exit(1);
      return;
    }
    stoppingSince = Date.now();
    service.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}

const demo = await ensureDemoData(service.dataDir, service.url, service.adminKey);
const readyInMs = Date.now() - startedAt;

const lines = [
  `Workflow service listening on ${service.url} (ready in ${readyInMs} ms; data in ${server.DATA_DIR}; process ${process.pid})`,
  ...(service.bundles
    ? [
        `Serving the Lambda bundles from dist/functions (LOCAL_HANDLERS=bundles): ${service.bundles.functions.size} functions, each in its own thread from its first call, with its template's environment`,
      ]
    : []),
  '',
  `Admin key (x-admin-key): ${service.adminKey}`,
  `Demo API key (x-api-key): ${demo.apiKey}`,
  `Demo workspace: ${demo.workspaceId}`,
  `Demo form (open it in a browser): ${demo.formUrl}`,
  `Console (sign in with the demo API key): ${service.url}/${consolePrefix}/`,
  `Key of stored secrets: ${optionalEnv('ENVIRONMENT_KEY_FILE')} (ENVIRONMENT_KEY_FILE keeps it outside the data dir)`,
  ...(switchesSetting().ssoEnabled
    ? [
        `Single sign-on: management and log routes also take ID tokens of ${settings.functions.OIDC_ISSUER} (Authorization: Bearer)`,
      ]
    : []),
  settings.functions.SMTP_URL
    ? 'Notification e-mail goes through SMTP_URL'
    : `Notification e-mail (no SMTP_URL) and unreachable chat messages are written to ${optionalEnv('NOTIFICATION_OUTBOX_DIR')}`,
  '',
  'Try:',
  `  curl ${service.url}/api/health`,
  ...demo.workflows.map(
    (workflow) =>
      `  curl -X POST ${service.url}/api/workflows/${workflow.id}/execute -H 'x-api-key: ${demo.apiKey}' -H 'content-type: application/json' -d '${JSON.stringify(workflow.sampleInput)}'   # ${workflow.name}`,
  ),
  `  curl '${service.url}/api/workflows?workspaceId=${demo.workspaceId}' -H 'x-api-key: ${demo.apiKey}'`,
  `  curl '${service.url}/api/v1/logs?workspaceId=${demo.workspaceId}&limit=10' -H 'x-api-key: ${demo.apiKey}'   # the runs above`,
  `  curl ${service.url}/api/openapi.json`,
];
console.log(lines.join('\n'));
