/**
 * Sim workflow files as Sim's export writes them (version 1.0: `{version, exportedAt, state}`, each
 * block with its `subBlocks`), and the ZIP archives of a Sim workspace export, for the import tests
 * (integration and end-to-end). Sending goes over HTTP only, so the in-process and compiled services
 * are driven alike.
 */
import { strToU8, zipSync } from 'fflate';

export interface SimBlockSpec {
  id: string;
  type: string;
  name: string;
  values?: Record<string, unknown>;
  parentId?: string;
}

let position = 0;

export function simBlock({ id, type, name, values = {}, parentId }: SimBlockSpec) {
  position += 1;
  return {
    id,
    type,
    name,
    position: { x: position * 200, y: 100 },
    subBlocks: Object.fromEntries(
      Object.entries(values).map(([key, value]) => [key, { id: key, type: 'short-input', value }]),
    ),
    outputs: {},
    enabled: true,
    ...(parentId ? { data: { parentId, extent: 'parent' } } : {}),
  };
}

export function simEdge(source: string, target: string, sourceHandle = 'source') {
  return { id: `${source}-${target}-${sourceHandle}`, source, target, sourceHandle, targetHandle: 'target' };
}

/** Sim's export of one workflow. */
export function simExport(
  name: string,
  blocks: ReturnType<typeof simBlock>[],
  edges: ReturnType<typeof simEdge>[],
  extra: { variables?: Record<string, unknown>; description?: string } = {},
) {
  return {
    version: '1.0',
    exportedAt: '2026-01-05T10:00:00.000Z',
    state: {
      blocks: Object.fromEntries(blocks.map((block) => [block.id, block])),
      edges,
      loops: {},
      parallels: {},
      variables: extra.variables ?? {},
      metadata: { name, description: extra.description ?? '', exportedAt: '2026-01-05T10:00:00.000Z' },
    },
  };
}

/** `start_trigger` → function → response: greets `<start.name>`. */
export function simGreeting(name = 'Greeter') {
  return simExport(
    name,
    [
      simBlock({
        id: 'start-1',
        type: 'start_trigger',
        name: 'Start',
        values: { inputFormat: [{ id: 'f1', name: 'name', type: 'string', value: '' }] },
      }),
      simBlock({
        id: 'fn-1',
        type: 'function',
        name: 'Function 1',
        values: { language: 'javascript', code: "return 'Hello, ' + <start.name> + '!';" },
      }),
      simBlock({
        id: 'resp-1',
        type: 'response',
        name: 'Response',
        values: { dataMode: 'json', data: '{"greeting": "<function1.result>"}', status: 200 },
      }),
    ],
    [simEdge('start-1', 'fn-1'), simEdge('fn-1', 'resp-1')],
  );
}

/** A workflow whose `workflow_input` block calls the Sim workflow `childSimId` with `{name: "Lin"}`. */
export function simParent(childSimId: string, name = 'Parent') {
  return simExport(
    name,
    [
      simBlock({ id: 'start-1', type: 'start_trigger', name: 'Start', values: { inputFormat: [] } }),
      simBlock({
        id: 'call',
        type: 'workflow_input',
        name: 'Call greeter',
        values: { workflowId: childSimId, inputMapping: '{"name": "Lin"}' },
      }),
    ],
    [simEdge('start-1', 'call')],
  );
}

/** A workflow with blocks this service does not have: refused whole, each listed. */
export function simUnsupported(name = 'Unsupported') {
  return simExport(
    name,
    [
      simBlock({ id: 'start-1', type: 'start_trigger', name: 'Start', values: { inputFormat: [] } }),
      simBlock({ id: 'slack-1', type: 'slack', name: 'Tell the team', values: { channel: 'general' } }),
      simBlock({ id: 'eval-1', type: 'evaluator', name: 'Grade it', values: { metrics: [] } }),
    ],
    [simEdge('start-1', 'slack-1'), simEdge('slack-1', 'eval-1')],
  );
}

/** A Sim workspace export: `_workspace.json` and `<name>-<id>.json` per workflow (in folders, if named). */
export function simWorkspaceZip(
  workflows: { id: string; folder?: string; file: unknown }[],
  extraEntries: Record<string, Uint8Array> = {},
): Uint8Array {
  const files: Record<string, Uint8Array> = {
    '_workspace.json': strToU8(
      JSON.stringify({
        workspace: { name: 'Sim team', exportedAt: '2026-01-05T10:00:00.000Z' },
        folders: [],
      }),
    ),
    ...extraEntries,
  };
  for (const workflow of workflows) {
    const state = (workflow.file as { state: { metadata: { name: string } } }).state;
    const fileName = `${state.metadata.name.replace(/[^\p{L}\p{N}\-_]/gu, '-')}-${workflow.id}.json`;
    files[workflow.folder ? `${workflow.folder}/${fileName}` : fileName] = strToU8(
      JSON.stringify(workflow.file, null, 2),
    );
  }
  return zipSync(files);
}

/** Sends an archive to the import route as Sim's export is sent: the ZIP's bytes as they are. */
export async function postArchive(
  url: string,
  apiKey: string,
  query: Record<string, string>,
  body: Uint8Array,
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${url}/api/workflows/import?${new URLSearchParams(query)}`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/zip' },
    body,
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}
