/** Users, API keys, workspaces, organizations and memberships, and the port that stores them. */

export type Plan = 'free' | 'pro' | 'team' | 'enterprise';
export type WorkspacePermission = 'read' | 'write' | 'admin';
export type OrganizationRole = 'owner' | 'admin' | 'member';

export interface User {
  id: string;
  email: string;
  name: string;
  plan: Plan;
  /** USD a calendar month; absent: the plan's. */
  usageLimitUsd?: number;
  /** The organization the user belongs to (one at most): its plan applies when it ranks higher. */
  organizationId?: string;
  createdAt: string;
}

/** What an operator may change of a user's or an organization's limits; null returns to the plan's. */
export interface LimitsPatch {
  plan?: Plan;
  usageLimitUsd?: number | null;
}

/** An API key as stored: only its SHA-256 hash, never the key. */
export interface ApiKeyRecord {
  id: string;
  userId: string;
  name: string;
  /** The first characters of the key, shown in listings so a person can tell keys apart. */
  prefix: string;
  hash: string;
  createdAt: string;
}

export interface Workspace {
  id: string;
  name: string;
  ownerId: string;
  /** The organization the workspace belongs to; absent: it belongs to its owner alone. */
  organizationId?: string;
  createdAt: string;
}

export interface WorkspaceMembership {
  workspaceId: string;
  userId: string;
  permissions: WorkspacePermission;
}

export interface Organization {
  id: string;
  name: string;
  ownerId: string;
  /** Applies to every member whose own plan ranks lower. */
  plan: Plan;
  usageLimitUsd?: number;
  createdAt: string;
}

export interface OrganizationMembership {
  organizationId: string;
  userId: string;
  role: OrganizationRole;
}

/** Port. Every method is a key lookup or a Query on a key built for it: no scans. */
export interface IdentityStore {
  /** Throws ConflictError when the e-mail address is taken. */
  createUser(user: User): Promise<void>;
  getUser(userId: string): Promise<User | undefined>;
  /** The user who holds this e-mail address, compared trimmed and lowercased (e-mails are unique). */
  findUserByEmail(email: string): Promise<User | undefined>;
  /** The user after the change, or undefined when there is no such user. */
  updateUserLimits(userId: string, patch: LimitsPatch): Promise<User | undefined>;
  /** Records the user's organization; ConflictError when the user belongs to another one already. */
  setUserOrganization(userId: string, organizationId: string): Promise<void>;

  putApiKey(record: ApiKeyRecord): Promise<void>;
  findApiKeyByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  listApiKeys(userId: string): Promise<ApiKeyRecord[]>;
  /** Returns the deleted record, or undefined when the user has no such key. */
  deleteApiKey(userId: string, keyId: string): Promise<ApiKeyRecord | undefined>;

  /** Stores the workspace and its owner's admin membership. */
  createWorkspace(workspace: Workspace, owner: WorkspaceMembership): Promise<void>;
  getWorkspace(workspaceId: string): Promise<Workspace | undefined>;
  putWorkspaceMembership(membership: WorkspaceMembership): Promise<void>;
  getWorkspaceMembership(workspaceId: string, userId: string): Promise<WorkspaceMembership | undefined>;
  deleteWorkspaceMembership(workspaceId: string, userId: string): Promise<WorkspaceMembership | undefined>;
  listWorkspaceMembershipsOfUser(userId: string): Promise<WorkspaceMembership[]>;
  listWorkspaceMembers(workspaceId: string): Promise<WorkspaceMembership[]>;
  /** The workspaces that belong to an organization (a Query on the organization's partition). */
  listOrganizationWorkspaces(organizationId: string): Promise<Workspace[]>;

  createOrganization(organization: Organization, owner: OrganizationMembership): Promise<void>;
  getOrganization(organizationId: string): Promise<Organization | undefined>;
  updateOrganizationLimits(organizationId: string, patch: LimitsPatch): Promise<Organization | undefined>;
  /** Every organization, for the operator (a Query on an index of organizations). */
  listOrganizations(): Promise<Organization[]>;
  putOrganizationMembership(membership: OrganizationMembership): Promise<void>;
  getOrganizationMembership(
    organizationId: string,
    userId: string,
  ): Promise<OrganizationMembership | undefined>;
  listOrganizationMembers(organizationId: string): Promise<OrganizationMembership[]>;
  /**
   * Deletes the membership and clears the user's organization; the deleted membership, or
   * undefined when the user was not a member.
   */
  removeOrganizationMember(
    organizationId: string,
    userId: string,
  ): Promise<OrganizationMembership | undefined>;
}
