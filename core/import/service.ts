/**
 * Importing and exporting workflows: one use case for the import route, the admin import and a
 * workspace archive. The file is read and converted (./index.ts) before anything is stored, so a
 * refused workflow (400, 422) leaves nothing behind.
 */
import type { WorkflowGraph } from '../engine/types';
import { isServiceError, NotFoundError, ValidationError } from '../errors';
import { newId } from '../ids';
import { requireWorkspaceAccess } from '../identity/access';
import type { Principal } from '../identity/service';
import { graphViolations } from '../permissions/check';
import type { AccessPolicy } from '../permissions/types';
import {
  deployRecord,
  insertWorkflow,
  loadWorkflow,
  type WorkflowDeps,
  workflowView,
  type WorkflowView,
} from '../workflows/service';
import type { WorkflowRecord } from '../workflows/types';
import {
  convertWorkflowFile,
  type ImportContext,
  type ImportWarning,
  readWorkflowFile,
  toSimExport,
} from '.';

export type { ImportWarning };
import type { WorkflowFile } from './types';

/**
 * Who imports: a member with write permission, with the access policy of their permission group
 * (none: full access), or the operator (admin key), acting as the workspace's owner.
 */
export type ImportAuthority = { principal: Principal; policy?: AccessPolicy } | { operator: true };

export interface ImportInput {
  workspaceId: string;
  /** A Sim export (any of its forms), our graph, or either as a JSON string. */
  workflow: unknown;
  name?: string;
  description?: string;
  folderId?: string | null;
  deploy?: boolean;
}

export interface ImportedWorkflow {
  id: string;
  name: string;
  deployed: boolean;
  warnings: ImportWarning[];
  /** The stored workflow, for answers that show it whole (the admin import). */
  view: WorkflowView;
}

/** Name of a workflow whose file names none. */
export const defaultImportedName = 'Imported workflow';

/** The workspace exists and the importer may write to it; the user id deployments are made by. */
async function deployerOf(
  deps: WorkflowDeps,
  authority: ImportAuthority,
  workspaceId: string,
): Promise<string> {
  if ('principal' in authority) {
    await requireWorkspaceAccess(deps.identity, authority.principal.user.id, workspaceId, 'write');
    return authority.principal.user.id;
  }
  const workspace = await deps.identity.getWorkspace(workspaceId);
  if (!workspace) throw new NotFoundError(`Workspace ${workspaceId} not found`);
  return workspace.ownerId;
}

/**
 * A child workflow of the source workspace, found in the target one: a workflow of that id (our own
 * export, imported where it came from) or, failing that, of that name.
 */
function workspaceContext(existing: WorkflowRecord[]): ImportContext {
  const byId = new Map(existing.map((record) => [record.id, record.id]));
  const byName = new Map(existing.map((record) => [record.name, record.id]));
  return {
    childWorkflowId: (ref) => byId.get(ref.id) ?? (ref.name === undefined ? undefined : byName.get(ref.name)),
  };
}

async function store(
  deps: WorkflowDeps,
  deployer: string,
  input: Omit<Parameters<typeof insertWorkflow>[1], 'state'> & { graph: WorkflowGraph; deploy?: boolean },
): Promise<WorkflowRecord> {
  const record = await insertWorkflow(deps, { ...input, state: input.graph });
  return input.deploy ? deployRecord(deps, record, deployer) : record;
}

/**
 * Beside the conversion's warnings, what any save of the graph answers: the blocks the importer's
 * permission group does not allow (stored all the same; a run refuses them).
 */
function warningsOf(
  authority: ImportAuthority,
  graph: WorkflowGraph,
  converted: ImportWarning[],
): ImportWarning[] {
  const policy = 'principal' in authority ? authority.policy : undefined;
  const refused = graphViolations(graph, policy).map(({ blockId, message }) => ({ blockId, message }));
  return [...converted, ...refused];
}

function importedOf(record: WorkflowRecord, warnings: ImportWarning[]): ImportedWorkflow {
  return {
    id: record.id,
    name: record.name,
    deployed: record.isDeployed,
    warnings,
    view: workflowView(record),
  };
}

/** Imports one workflow file into a workspace, optionally deploying it. */
export async function importWorkflowFile(
  deps: WorkflowDeps,
  authority: ImportAuthority,
  input: ImportInput,
): Promise<ImportedWorkflow> {
  const deployer = await deployerOf(deps, authority, input.workspaceId);
  const file = readWorkflowFile(input.workflow);
  const context = workspaceContext(await deps.workflows.listWorkflows(input.workspaceId));
  const converted = convertWorkflowFile(file, context);
  const record = await store(deps, deployer, {
    workspaceId: input.workspaceId,
    name: input.name ?? converted.name ?? file.name ?? defaultImportedName,
    description: input.description ?? converted.description ?? file.description,
    folderId: input.folderId,
    graph: converted.graph,
    deploy: input.deploy,
  });
  return importedOf(record, warningsOf(authority, converted.graph, converted.warnings));
}

/** One file of a workspace or folder archive: its path in the archive and its text. */
export interface ArchiveEntry {
  path: string;
  text: string;
}

/** The answer for one workflow of an archive: stored (`id`) or refused (`error`, nothing stored). */
export interface ArchiveWorkflowResult {
  sourceName: string;
  /** The entry the workflow came from. */
  path: string;
  id?: string;
  name?: string;
  deployed?: boolean;
  warnings: ImportWarning[];
  error?: { code: string; message: string; details?: unknown };
}

/** The metadata entries Sim writes at an archive's root; everything else ending in .json is a workflow. */
const archiveMetadata = new Set(['_workspace.json', '_folder.json']);

/** Sim names an archive's workflow `<name>-<workflow id>.json`. */
const sourceIdInPath = /-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.json$/i;

interface ArchiveWorkflow {
  path: string;
  file: WorkflowFile;
  sourceId?: string;
  sourceName: string;
  id: string;
}

function parseEntry(entry: ArchiveEntry): unknown {
  try {
    return JSON.parse(entry.text);
  } catch (error) {
    throw new ValidationError(
      `Archive entry ${entry.path} is not valid JSON: ${(error as Error).message}`,
      [{ path: entry.path, message: 'Not valid JSON' }],
      { cause: error },
    );
  }
}

/** Every workflow of the archive, read; an entry that cannot be read refuses the whole archive. */
function archiveWorkflows(entries: ArchiveEntry[]): ArchiveWorkflow[] {
  const workflows: ArchiveWorkflow[] = [];
  for (const entry of entries) {
    if (!entry.path.toLowerCase().endsWith('.json')) continue;
    const parsed = parseEntry(entry);
    if (archiveMetadata.has(entry.path)) continue;
    let file: WorkflowFile;
    try {
      file = readWorkflowFile(parsed);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new ValidationError(
        `Archive entry ${entry.path} is not a workflow: ${message}`,
        [{ path: entry.path, message }],
        { cause: error },
      );
    }
    const fileName = entry.path.split('/').pop() ?? entry.path;
    const sourceId = (file.kind === 'sim' ? file.sourceId : undefined) ?? sourceIdInPath.exec(fileName)?.[1];
    const sourceName = file.name ?? fileName.replace(sourceIdInPath, '').replace(/\.json$/i, '');
    workflows.push({ path: entry.path, file, sourceId, sourceName, id: newId('wf') });
  }
  if (workflows.length === 0) {
    throw new ValidationError('The archive holds no workflow: expected one .json file per workflow', [
      { path: '(archive)', message: 'No workflow entry' },
    ]);
  }
  return workflows;
}

/** Child references resolve to the archive's workflows first (by Sim id, then name), then the workspace's. */
function archiveContext(workflows: ArchiveWorkflow[], workspace: ImportContext): ImportContext {
  const bySourceId = new Map(workflows.flatMap((w) => (w.sourceId ? [[w.sourceId, w.id] as const] : [])));
  const byName = new Map(workflows.map((w) => [w.sourceName, w.id]));
  return {
    childWorkflowId: (ref) =>
      bySourceId.get(ref.id) ??
      (ref.name === undefined ? undefined : byName.get(ref.name)) ??
      workspace.childWorkflowId(ref),
  };
}

/** A workflow's refusal as the caller may see it; anything but the caller's fault stays internal. */
function errorOf(error: unknown): NonNullable<ArchiveWorkflowResult['error']> {
  if (!isServiceError(error) || error.statusCode >= 500) {
    return { code: 'INTERNAL_ERROR', message: 'The workflow could not be stored' };
  }
  return {
    code: error.code,
    message: error.message,
    ...(error.details === undefined ? {} : { details: error.details }),
  };
}

/**
 * Imports every workflow of a Sim workspace or folder archive. Ids are given before any is converted,
 * so child workflow blocks point at the workflows imported beside them; a workflow that cannot run
 * here is answered with its error and the others are imported (a reference to it becomes a warning).
 */
export async function importWorkflowArchive(
  deps: WorkflowDeps,
  authority: ImportAuthority,
  input: { workspaceId: string; entries: ArchiveEntry[]; folderId?: string | null; deploy?: boolean },
): Promise<ArchiveWorkflowResult[]> {
  const deployer = await deployerOf(deps, authority, input.workspaceId);
  const workflows = archiveWorkflows(input.entries);
  const workspace = workspaceContext(await deps.workflows.listWorkflows(input.workspaceId));
  const convertAll = (importable: ArchiveWorkflow[]) => {
    const context = archiveContext(importable, workspace);
    return importable.map((workflow) => {
      try {
        return { workflow, converted: convertWorkflowFile(workflow.file, context) };
      } catch (error) {
        return { workflow, error };
      }
    });
  };
  // Once more without the refused ones: a reference to one of them is then a warning, not a dangling id.
  const first = convertAll(workflows);
  const refused = first.filter((result) => 'error' in result);
  const second =
    refused.length === 0 ? first : convertAll(first.flatMap((r) => ('converted' in r ? [r.workflow] : [])));
  const results: ArchiveWorkflowResult[] = refused.map(({ workflow, error }) => ({
    sourceName: workflow.sourceName,
    path: workflow.path,
    warnings: [],
    error: errorOf(error),
  }));
  for (const result of second) {
    const { workflow } = result;
    const base = { sourceName: workflow.sourceName, path: workflow.path };
    if (!('converted' in result) || !result.converted) {
      results.push({ ...base, warnings: [], error: errorOf(result.error) });
      continue;
    }
    try {
      const record = await store(deps, deployer, {
        id: workflow.id,
        workspaceId: input.workspaceId,
        name: result.converted.name ?? workflow.sourceName,
        description: result.converted.description ?? workflow.file.description,
        folderId: input.folderId,
        graph: result.converted.graph,
        deploy: input.deploy,
      });
      results.push({
        ...base,
        id: record.id,
        name: record.name,
        deployed: record.isDeployed,
        warnings: warningsOf(authority, result.converted.graph, result.converted.warnings),
      });
    } catch (error) {
      results.push({ ...base, warnings: result.converted.warnings, error: errorOf(error) });
    }
  }
  const order = new Map(workflows.map((workflow, index) => [workflow.path, index]));
  return results.sort((a, b) => (order.get(a.path) ?? 0) - (order.get(b.path) ?? 0));
}

export type ExportFormat = 'graph' | 'sim';

/** A workflow as a file: our graph with its name and description, or Sim's export (version 1.0). */
export async function exportWorkflow(
  deps: WorkflowDeps,
  principal: Principal,
  workflowId: string,
  format: ExportFormat,
): Promise<{ document: unknown; warnings: ImportWarning[] }> {
  const record = await loadWorkflow(deps, principal, workflowId, 'read');
  // Model keys written into the graph stay masked, as in every read.
  const { name, description, state } = workflowView(record);
  if (format === 'sim') return toSimExport({ name, description, graph: state });
  return { document: { name, description, state }, warnings: [] };
}
