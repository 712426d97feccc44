import { DynamoIdentityStore } from '../../adapters/dynamodb/identity-store';
import type { IdentityDeps } from '../../core/identity/service';

/** Cheap: the SDK client underneath is created once per process (adapters/aws/clients.ts). */
export function identityDeps(): IdentityDeps {
  return { store: DynamoIdentityStore.fromEnv(), now: () => new Date() };
}
