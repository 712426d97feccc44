/** Wire schemas of permission groups: what a group is created and changed with, and how it is shown. */
import { z } from 'zod';
import { modelProviders, restrictableBlockTypes } from '../core/permissions/types';
import { id } from './schemas';

const name = z.string().trim().min(1, 'Give a name').max(200);
/** Lowercased like the model gateway reads a block's provider; repeated entries are dropped. */
const allowedModelProviders = z
  .array(
    z
      .string()
      .trim()
      .toLowerCase()
      .pipe(z.enum(modelProviders, { error: `One of ${modelProviders.join(', ')}` })),
  )
  .max(modelProviders.length * 4)
  .transform((values) => [...new Set(values)])
  .meta({ description: `Model providers, any case: ${modelProviders.join(', ')}` });
const allowedBlocks = z
  .array(
    z
      .string()
      .trim()
      .pipe(
        z.enum(restrictableBlockTypes as [string, ...string[]], {
          error: `A block type: ${restrictableBlockTypes.join(', ')} (start is always allowed)`,
        }),
      ),
  )
  .max(restrictableBlockTypes.length * 4)
  .transform((values) => [...new Set(values)])
  .meta({ description: `Block types: ${restrictableBlockTypes.join(', ')} (start is always allowed)` });
const platformSwitches = {
  hideKnowledgeBase: z.boolean().optional(),
  disableMcpTools: z.boolean().optional(),
  disableCustomTools: z.boolean().optional(),
  disableInvitations: z.boolean().optional(),
};

/** A list left out (or null) restricts nothing; a list, even an empty one, allows only what it names. */
export const createPermissionGroupBody = z.strictObject({
  name,
  allowedModelProviders: allowedModelProviders.nullable().optional(),
  allowedBlocks: allowedBlocks.nullable().optional(),
  ...platformSwitches,
});

/** The members given replace the group's; null lifts a list's restriction. */
export const updatePermissionGroupBody = z.strictObject({
  name: name.optional(),
  allowedModelProviders: allowedModelProviders.nullable().optional(),
  allowedBlocks: allowedBlocks.nullable().optional(),
  ...platformSwitches,
});

export const addPermissionGroupMemberBody = z.strictObject({ userId: id });

export const permissionGroupParams = z.object({ orgId: id, groupId: id });
export const permissionGroupMemberParams = z.object({ orgId: id, groupId: id, userId: id });

export const permissionGroupView = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    name: z.string(),
    allowedModelProviders: z.array(z.string()).nullable(),
    allowedBlocks: z.array(z.string()).nullable(),
    hideKnowledgeBase: z.boolean(),
    disableMcpTools: z.boolean(),
    disableCustomTools: z.boolean(),
    disableInvitations: z.boolean(),
    members: z.array(z.string()),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'PermissionGroup' });
