/**
 * `npm run import -- <file.json|file.zip> --workspace <id>`: imports a Sim export, one of this
 * service's own graph files, or a Sim workspace or folder ZIP through `POST /api/workflows/import`,
 * and prints each workflow's id and warnings. Against the local service (`npm start`) by default,
 * with the demo key it keeps in the data dir; `--url` and `--api-key` reach any other deployment.
 * Exits 1 when anything was refused (an archive's other workflows are still imported), 2 on bad usage.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const usage = `Usage: npm run import -- <file.json|file.zip> --workspace <id> [--name <name>] [--deploy]
                         [--url <base URL>] [--api-key <key>] [--data-dir <dir>]
  --url       the service (default http://localhost:3000, or WORKFLOW_SERVICE_URL)
  --api-key   an API key with write permission on the workspace (default WORKFLOW_API_KEY, else
              the demo key of the local service's data dir)
  --data-dir  the local service's data dir, where its demo key is kept (default DATA_DIR, else .data)
  --workspace the workspace to import into (default: the local demo workspace)`;

class UsageError extends Error {
  override name = 'UsageError';
}

interface Options {
  file: string;
  url: string;
  apiKey: string;
  workspaceId: string;
  name?: string;
  deploy: boolean;
}

interface Warning {
  blockId?: string;
  message: string;
}

interface ArchiveResult {
  sourceName: string;
  path: string;
  id?: string;
  name?: string;
  warnings: Warning[];
  error?: { code: string; message: string; details?: unknown };
}

async function optionsOf(argv: string[], env: NodeJS.ProcessEnv): Promise<Options> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      workspace: { type: 'string' },
      url: { type: 'string' },
      'api-key': { type: 'string' },
      'data-dir': { type: 'string' },
      name: { type: 'string' },
      deploy: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) throw new UsageError('');
  if (positionals.length !== 1) throw new UsageError('Give one file to import');
  // An empty variable is an unset one.
  const given = values['api-key'] || env.WORKFLOW_API_KEY || undefined;
  // The local service's demo key and workspace, when no key is given.
  const demoFile = join(resolve(values['data-dir'] || env.DATA_DIR || '.data'), 'demo.json');
  const demo =
    existsSync(demoFile) && !given
      ? (JSON.parse(await readFile(demoFile, 'utf8')) as { apiKey: string; workspaceId: string })
      : undefined;
  const apiKey = given ?? demo?.apiKey;
  if (!apiKey) {
    throw new UsageError(`No API key: give --api-key (or WORKFLOW_API_KEY); ${demoFile} has none`);
  }
  const workspaceId = values.workspace ?? demo?.workspaceId;
  if (!workspaceId) throw new UsageError('Give the workspace to import into: --workspace <id>');
  return {
    file: positionals[0],
    url: (values.url || env.WORKFLOW_SERVICE_URL || 'http://localhost:3000').replace(/\/+$/, ''),
    apiKey,
    workspaceId,
    name: values.name,
    deploy: values.deploy ?? false,
  };
}

function warningLines(warnings: Warning[]): string[] {
  return warnings.map(
    (warning) => `    warning${warning.blockId ? ` (${warning.blockId})` : ''}: ${warning.message}`,
  );
}

function errorLines(error: { message?: string; error?: string; details?: unknown }): string[] {
  const lines = [`    error: ${error.message ?? error.error}`];
  if (Array.isArray(error.details)) {
    for (const detail of error.details as { path?: string; message?: string }[])
      lines.push(`      ${detail.path ?? ''}: ${detail.message ?? ''}`);
  }
  return lines;
}

/** Imports the file; the lines to print and whether everything was imported. */
export async function importFile(options: Options): Promise<{ lines: string[]; ok: boolean }> {
  const content = await readFile(options.file);
  const isZip = content.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04]));
  const query = new URLSearchParams({
    workspaceId: options.workspaceId,
    ...(options.deploy ? { deploy: 'true' } : {}),
  });
  const response = await fetch(`${options.url}/api/workflows/import${isZip ? `?${query}` : ''}`, {
    method: 'POST',
    headers: { 'x-api-key': options.apiKey, 'content-type': isZip ? 'application/zip' : 'application/json' },
    body: isZip
      ? content
      : JSON.stringify({
          workspaceId: options.workspaceId,
          // Sent as it is: the service reads the file, and names what is wrong with it.
          workflow: content.toString('utf8'),
          ...(options.name ? { name: options.name } : {}),
          ...(options.deploy ? { deploy: true } : {}),
        }),
  });
  const answer = (await response.json().catch(() => ({ error: `HTTP ${response.status}` }))) as {
    data?: { id: string; name: string; deployed: boolean; warnings: Warning[]; workflows?: ArchiveResult[] };
    error?: string;
    code?: string;
    details?: unknown;
  };
  if (!response.ok || !answer.data) {
    return {
      lines: [`${options.file}: refused (${response.status} ${answer.code ?? ''})`, ...errorLines(answer)],
      ok: false,
    };
  }
  if (answer.data.workflows) {
    const lines: string[] = [];
    let ok = true;
    for (const workflow of answer.data.workflows) {
      if (workflow.error) {
        ok = false;
        lines.push(`${workflow.path}: refused (${workflow.error.code})`, ...errorLines(workflow.error));
        continue;
      }
      lines.push(`${workflow.id}  ${workflow.name}  (${workflow.path})`, ...warningLines(workflow.warnings));
    }
    return { lines, ok };
  }
  const { id, name, deployed, warnings } = answer.data;
  return { lines: [`${id}  ${name}${deployed ? '  (deployed)' : ''}`, ...warningLines(warnings)], ok: true };
}

async function main(): Promise<number> {
  let options: Options;
  try {
    options = await optionsOf(process.argv.slice(2), process.env);
  } catch (error) {
    const message = (error as Error).message;
    console.error(message ? `${message}\n\n${usage}` : usage);
    return 2;
  }
  try {
    const { lines, ok } = await importFile(options);
    for (const line of lines) console.log(line);
    return ok ? 0 : 1;
  } catch (error) {
    console.error(`Import failed: ${(error as Error).message}`);
    return 1;
  }
}

process.exitCode = await main();
