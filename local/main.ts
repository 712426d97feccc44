/**
 * The service on http://localhost:3000 with demo data. `npm start` runs this module compiled
 * (scripts/start.mjs), in the process whose id the ready line prints: SIGINT or SIGTERM to it stops
 * the service (servers, workers, emulators) and ends the process.
 */
import { consolePrefix } from '../console/site';
import { readSwitches } from '../core/config/switches';
import { handlersModeOf } from './bundles/mode';
import { startLocalService } from './service';
import { ensureDemoData } from './seed';

const startedAt = Date.now();
process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
// Refused before anything starts: a typo must not quietly serve the sources.
let handlers: ReturnType<typeof handlersModeOf>;
try {
  handlers = handlersModeOf(process.env.LOCAL_HANDLERS);
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
const service = await startLocalService({
  dataDir: process.env.DATA_DIR ?? '.data',
  port: Number(process.env.PORT ?? 3000),
  host: process.env.HOST,
  keyFiles: { environment: process.env.ENVIRONMENT_KEY_FILE },
  handlers,
});
const demo = await ensureDemoData(service.dataDir, service.url, service.adminKey);
const readyInMs = Date.now() - startedAt;

const lines = [
  `Workflow service listening on ${service.url} (ready in ${readyInMs} ms; data in ${process.env.DATA_DIR ?? '.data'}; process ${process.pid})`,
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
  `Key of stored secrets: ${process.env.ENVIRONMENT_KEY_FILE} (ENVIRONMENT_KEY_FILE keeps it outside the data dir)`,
  ...(readSwitches().ssoEnabled
    ? [
        `Single sign-on: management and log routes also take ID tokens of ${process.env.OIDC_ISSUER} (Authorization: Bearer)`,
      ]
    : []),
  process.env.SMTP_URL
    ? 'Notification e-mail goes through SMTP_URL'
    : `Notification e-mail (no SMTP_URL) and unreachable chat messages are written to ${process.env.NOTIFICATION_OUTBOX_DIR}`,
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

/**
 * A terminal's Ctrl-C signals its whole process group, and npm passes the signal on to the server
 * too: one Ctrl-C arrives twice, close together. Only a signal this long after the first is a
 * second Ctrl-C.
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
