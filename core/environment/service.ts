/**
 * Workspace environment variables: list (values in clear only for members who may write), set,
 * delete, and `loadEnvironment` for the run path. Values are encrypted before they reach the store
 * and decrypted only on the way out.
 */
import { NotFoundError, ValidationError } from '../errors';
import { permits, requireWorkspaceAccess, workspaceAccessOf } from '../identity/access';
import type { Principal } from '../identity/service';
import type { IdentityStore } from '../identity/types';
import { environmentNameProblem, environmentValueProblem, MAX_ENVIRONMENT_VARIABLES } from './rules';
import type { EnvironmentStore, EnvironmentVariableRecord, SecretCipher } from './types';

export interface EnvironmentDeps {
  identity: IdentityStore;
  environment: EnvironmentStore;
  cipher: SecretCipher;
  now: () => Date;
}

/** What the run path needs: no identity, the run was authorised when it started. */
export type LoadEnvironmentDeps = Pick<EnvironmentDeps, 'environment' | 'cipher'>;

export interface EnvironmentVariableView {
  name: string;
  /** In clear for members with write or admin permission; absent for read members. */
  value?: string;
  updatedAt: string;
  updatedBy: string;
}

/** Variables decrypted at once: keeps a workspace with many variables from bursting KMS. */
const decryptConcurrency = 16;

function view(record: EnvironmentVariableRecord, value?: string): EnvironmentVariableView {
  return {
    name: record.name,
    ...(value === undefined ? {} : { value }),
    updatedAt: record.updatedAt,
    updatedBy: record.updatedBy,
  };
}

function requireValidName(name: string): void {
  const problem = environmentNameProblem(name);
  if (problem)
    throw new ValidationError(`Invalid variable name "${name}": ${problem}`, [
      { path: 'name', message: problem },
    ]);
}

function notFound(name: string): NotFoundError {
  return new NotFoundError(`Environment variable ${name} not found`);
}

/** The workspace's variables by name; `value` only when the caller may write to the workspace. */
export async function listEnvironmentVariables(
  deps: EnvironmentDeps,
  principal: Principal,
  workspaceId: string,
): Promise<EnvironmentVariableView[]> {
  // Asked for write so an organization admin who is also a read member still sees the values.
  const membership = await workspaceAccessOf(deps.identity, principal.user.id, workspaceId, 'write');
  if (!membership) throw new NotFoundError('Workspace not found');
  const records = await deps.environment.listVariables(workspaceId);
  if (!permits(membership.permissions, 'write')) return records.map((record) => view(record));
  return mapLimit(records, decryptConcurrency, async (record) =>
    view(record, await deps.cipher.decrypt(record.ciphertext, workspaceId)),
  );
}

/** Creates or replaces a variable (write permission). `created` tells which of the two it was. */
export async function setEnvironmentVariable(
  deps: EnvironmentDeps,
  principal: Principal,
  input: { workspaceId: string; name: string; value: string },
): Promise<{ variable: EnvironmentVariableView; created: boolean }> {
  const { workspaceId, name, value } = input;
  await requireWorkspaceAccess(deps.identity, principal.user.id, workspaceId, 'write');
  requireValidName(name);
  if (typeof value !== 'string') {
    throw new ValidationError('The value must be a string', [
      { path: 'value', message: 'Expected a string' },
    ]);
  }
  const valueProblem = environmentValueProblem(value);
  if (valueProblem) throw new ValidationError(valueProblem, [{ path: 'value', message: valueProblem }]);

  const existing = await deps.environment.getVariable(workspaceId, name);
  if (!existing && (await deps.environment.countVariables(workspaceId)) >= MAX_ENVIRONMENT_VARIABLES) {
    const message = `A workspace holds at most ${MAX_ENVIRONMENT_VARIABLES} environment variables; delete one first`;
    throw new ValidationError(message, [{ path: 'name', message }]);
  }
  const now = deps.now().toISOString();
  const record: EnvironmentVariableRecord = {
    workspaceId,
    name,
    ciphertext: await deps.cipher.encrypt(value, workspaceId),
    createdAt: existing?.createdAt ?? now,
    updatedAt: now,
    updatedBy: principal.user.id,
  };
  await deps.environment.putVariable(record);
  return { variable: view(record), created: !existing };
}

/** Deletes a variable (write permission); 404 when the workspace has no such variable. */
export async function deleteEnvironmentVariable(
  deps: EnvironmentDeps,
  principal: Principal,
  workspaceId: string,
  name: string,
): Promise<EnvironmentVariableView> {
  await requireWorkspaceAccess(deps.identity, principal.user.id, workspaceId, 'write');
  requireValidName(name);
  const deleted = await deps.environment.deleteVariable(workspaceId, name);
  if (!deleted) throw notFound(name);
  return view(deleted);
}

/** Every variable of the workspace, decrypted: what `{{NAME}}` resolves to in a run. */
export async function loadEnvironment(
  deps: LoadEnvironmentDeps,
  workspaceId: string,
): Promise<Record<string, string>> {
  const records = await deps.environment.listVariables(workspaceId);
  const values = await mapLimit(records, decryptConcurrency, (record) =>
    deps.cipher.decrypt(record.ciphertext, workspaceId),
  );
  const environment: Record<string, string> = {};
  records.forEach((record, index) => {
    environment[record.name] = values[index];
  });
  return environment;
}

/** `Promise.all(items.map(fn))` with at most `limit` calls in flight; results keep their order. */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
