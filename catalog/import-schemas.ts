/** Wire schemas of workflow import and export (docs/import.md). */
import * as z from './zod';
import { id, workflow, workflowGraph } from './schemas';

const name = z.string().check(z.trim(), z.minLength(1), z.maxLength(200));
const description = z.string().check(z.maxLength(2000));

/** A Sim export (any of its forms), our graph, or either as a JSON string: read by core/import. */
const workflowFile = z.unknown().check(
  z.refine((value) => value !== undefined && value !== null, {
    message: "Required: the workflow file (Sim's export or this service's graph), as JSON or a JSON string",
  }),
);

export const importWorkflowBody = z.strictObject({
  workspaceId: id,
  workflow: workflowFile,
  name: z.optional(name),
  description: z.optional(description),
  folderId: z.optional(z.nullable(z.string())),
  deploy: z.optional(z.boolean()),
});

/** The query of an archive import (`Content-Type: application/zip`); a JSON body names its workspace itself. */
export const importWorkflowQuery = z.object({
  workspaceId: z.optional(id),
  folderId: z.optional(z.string()),
  deploy: z.optional(z.enum(['true', 'false'])),
});

/** The admin import: `workflow` in any format the import route takes, or `state`, our graph, as before. */
export const adminImportWorkflowBody = z
  .strictObject({
    workspaceId: id,
    name: z.optional(name),
    description: z.optional(description),
    state: z.optional(workflowGraph),
    workflow: z.optional(z.unknown()),
    deploy: z.optional(z.boolean()),
  })
  .check(
    z.refine((body) => (body.state === undefined) !== (body.workflow === undefined), {
      message: 'Give the workflow once: workflow (a Sim export or our graph) or state (our graph)',
    }),
  );

export const importWarning = z
  .object({ blockId: z.optional(z.string()), message: z.string() })
  .register(z.globalRegistry, { id: 'ImportWarning' });

export const importedWorkflow = z
  .object({ id, name: z.string(), deployed: z.boolean(), warnings: z.array(importWarning) })
  .register(z.globalRegistry, { id: 'ImportedWorkflow' });

/** One workflow of an archive: stored (`id`) or refused (`error`, nothing of it stored). */
export const importedArchive = z
  .object({
    workflows: z.array(
      z.object({
        sourceName: z.string(),
        path: z.string(),
        id: z.optional(id),
        name: z.optional(z.string()),
        deployed: z.optional(z.boolean()),
        warnings: z.array(importWarning),
        error: z.optional(
          z.object({ code: z.string(), message: z.string(), details: z.optional(z.unknown()) }),
        ),
      }),
    ),
  })
  .register(z.globalRegistry, { id: 'ImportedArchive' });

export const exportWorkflowQuery = z.object({ format: z.optional(z.enum(['graph', 'sim'])) });

/** `format=graph`: `{name, description, state}`; `format=sim`: Sim's export, version 1.0. */
export const exportedWorkflow = z.object({ data: z.unknown(), warnings: z.array(importWarning) });

export const adminImportedWorkflow = z.object({ data: workflow, warnings: z.array(importWarning) });
