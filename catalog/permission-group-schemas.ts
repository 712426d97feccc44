/** Wire schemas of permission groups: what a group is created and changed with, and how it is shown. */
import * as z from './zod';
import { modelProviders, restrictableBlockTypes } from '../core/permissions/types';
import { id } from './schemas';

const name = z.string().check(z.trim(), z.minLength(1, 'Give a name'), z.maxLength(200));
/** Lowercased like the model gateway reads a block's provider; repeated entries are dropped. */
const allowedModelProviders = z
  .pipe(
    z
      .array(
        z.pipe(
          z.string().check(z.trim(), z.toLowerCase()),
          z.enum(modelProviders, { error: `One of ${modelProviders.join(', ')}` }),
        ),
      )
      .check(z.maxLength(modelProviders.length * 4)),
    z.transform((values: (typeof modelProviders)[number][]) => [...new Set(values)]),
  )
  .register(z.globalRegistry, { description: `Model providers, any case: ${modelProviders.join(', ')}` });
const allowedBlocks = z
  .pipe(
    z
      .array(
        z.pipe(
          z.string().check(z.trim()),
          z.enum(restrictableBlockTypes as [string, ...string[]], {
            error: `A block type: ${restrictableBlockTypes.join(', ')} (start is always allowed)`,
          }),
        ),
      )
      .check(z.maxLength(restrictableBlockTypes.length * 4)),
    z.transform((values: string[]) => [...new Set(values)]),
  )
  .register(z.globalRegistry, {
    description: `Block types: ${restrictableBlockTypes.join(', ')} (start is always allowed)`,
  });
const platformSwitches = {
  hideKnowledgeBase: z.optional(z.boolean()),
  disableMcpTools: z.optional(z.boolean()),
  disableCustomTools: z.optional(z.boolean()),
  disableInvitations: z.optional(z.boolean()),
};

/** A list left out (or null) restricts nothing; a list, even an empty one, allows only what it names. */
export const createPermissionGroupBody = z.strictObject({
  name,
  allowedModelProviders: z.optional(z.nullable(allowedModelProviders)),
  allowedBlocks: z.optional(z.nullable(allowedBlocks)),
  ...platformSwitches,
});

/** The members given replace the group's; null lifts a list's restriction. */
export const updatePermissionGroupBody = z.strictObject({
  name: z.optional(name),
  allowedModelProviders: z.optional(z.nullable(allowedModelProviders)),
  allowedBlocks: z.optional(z.nullable(allowedBlocks)),
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
    allowedModelProviders: z.nullable(z.array(z.string())),
    allowedBlocks: z.nullable(z.array(z.string())),
    hideKnowledgeBase: z.boolean(),
    disableMcpTools: z.boolean(),
    disableCustomTools: z.boolean(),
    disableInvitations: z.boolean(),
    members: z.array(z.string()),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .register(z.globalRegistry, { id: 'PermissionGroup' });
