import type { WorkflowGraph } from '../../core/engine/types';
import type { User } from '../../core/identity/types';
import { literalModelKeyWarnings } from '../../core/workflows/model-keys';
import { permissionWarnings } from '../wiring/permissions';

/**
 * The `warnings` of a save's answer: blocks the saver's permission group does not allow, and model
 * keys written into the graph sent (`sent`: the request's graph, which the answer shows masked).
 */
export async function saveWarnings(
  user: Pick<User, 'id' | 'organizationId'>,
  sent: WorkflowGraph | undefined,
  saved: () => WorkflowGraph,
): Promise<{ warnings?: object[] }> {
  const warnings = [
    ...((await permissionWarnings(user, saved)).warnings ?? []),
    ...(sent ? literalModelKeyWarnings(sent) : []),
  ];
  return warnings.length > 0 ? { warnings } : {};
}
