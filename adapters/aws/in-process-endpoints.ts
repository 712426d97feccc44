/**
 * Where the SDK clients (./client-options.ts) learn that an endpoint is an emulator in this process,
 * and how to reach it. The transport is local-only code (local/transport/in-process-transport.ts):
 * it installs itself here when it loads, which only the local emulators do, so adapters never import
 * local/ and Lambda bundles, which never have such an emulator, do not carry it.
 */
export interface InProcessClients {
  /** Client options (`requestHandler`, `signer`) for an endpoint in this process, or none. */
  optionsFor(endpoint: string): Record<string, unknown> | undefined;
  /** The client, with the middleware a call answered in this process has no use for removed. */
  lean<C extends { middlewareStack: { remove(name: string): boolean } }>(client: C, endpoint: string): C;
}

let installed: InProcessClients | undefined;

export function installInProcessClients(clients: InProcessClients): void {
  installed = clients;
}

export function inProcessClients(): InProcessClients | undefined {
  return installed;
}
