/**
 * Permission groups: per organization, a set of restrictions on what its members' workflows may use
 * (model providers, block types) and on platform features. A user is in at most one group of their
 * organization; a user in none has full access.
 */

import { blockTypes } from '../engine/graph';

/** Model providers a group can allow (docs/workflows.md, "Model providers"). */
export const modelProviders = ['openai', 'anthropic', 'bedrock'] as const;
export type ModelProvider = (typeof modelProviders)[number];

/** Block types a group can allow: those of the graph format. `start` is always allowed: every workflow begins with one. */
export const alwaysAllowedBlockTypes: readonly string[] = ['start'];
export const restrictableBlockTypes = blockTypes.filter((type) => !alwaysAllowedBlockTypes.includes(type));

export interface PlatformSwitches {
  /**
   * Hides the knowledge base in clients. This service has no knowledge base (the graph format has
   * no such block), so there is nothing to refuse; the switch is kept and shown for the clients.
   */
  hideKnowledgeBase: boolean;
  /** MCP tools of agents (`tools[].type` `mcp`) are refused. */
  disableMcpTools: boolean;
  /** Custom tools of agents (`tools[].type` `custom-tool`) are refused. */
  disableCustomTools: boolean;
  /** The group's members may not invite anyone (see `invitationsDisabledFor`). */
  disableInvitations: boolean;
}

export interface PermissionGroup extends PlatformSwitches {
  id: string;
  organizationId: string;
  name: string;
  /** Null: every provider. A list (even empty): only those. */
  allowedModelProviders: string[] | null;
  /** Null: every block type. A list (even empty): only those, and `start`. */
  allowedBlocks: string[] | null;
  createdAt: string;
  updatedAt: string;
}

export interface PermissionGroupMembership {
  organizationId: string;
  groupId: string;
  userId: string;
  addedAt: string;
}

/** A group as the API shows it: with the ids of its members. */
export type PermissionGroupView = PermissionGroup & { members: string[] };

/**
 * What a run (and a save) is checked against: the restrictions of the acting user's group. Small
 * and plain JSON, since it travels with the run through the state machine and its checkpoints.
 */
export interface AccessPolicy {
  groupId: string;
  groupName: string;
  allowedModelProviders?: string[];
  allowedBlocks?: string[];
  disableMcpTools?: boolean;
  disableCustomTools?: boolean;
}

/** Port. Every method is a key lookup or a Query on a key built for it: no scans. */
export interface PermissionGroupStore {
  /** ConflictError when a group with its id exists. */
  createGroup(group: PermissionGroup): Promise<void>;
  getGroup(organizationId: string, groupId: string): Promise<PermissionGroup | undefined>;
  /** Replaces the stored group; undefined when there is none. */
  updateGroup(group: PermissionGroup): Promise<PermissionGroup | undefined>;
  /** Removes the group and its memberships; the group removed, or undefined when there was none. */
  deleteGroup(organizationId: string, groupId: string): Promise<PermissionGroup | undefined>;
  /** The organization's groups with their members, oldest first (one Query). */
  listGroups(organizationId: string): Promise<PermissionGroupView[]>;
  listMembers(organizationId: string, groupId: string): Promise<PermissionGroupMembership[]>;
  /**
   * Puts the user in the group; adding them to the group they are in already is a no-op, while a
   * user in another group of the organization is a ConflictError (one group per organization).
   */
  addMember(membership: PermissionGroupMembership): Promise<void>;
  /** The membership removed, or undefined when the user was not in that group. */
  removeMember(
    organizationId: string,
    groupId: string,
    userId: string,
  ): Promise<PermissionGroupMembership | undefined>;
  /** The user's membership in the organization (at most one), if any: one GetItem. */
  findMembership(organizationId: string, userId: string): Promise<PermissionGroupMembership | undefined>;
}
