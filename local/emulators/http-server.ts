/** Small helpers shared by the local emulators. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A started emulator: where it answers and how to stop it. */
export interface RunningService {
  endpoint: string;
  stop(): Promise<void>;
}

/** `http://host:port`, with IPv6 literals in brackets. */
export function httpUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Listens on an ephemeral port of `host` and answers the port taken. */
export function listenEphemeral(server: Server, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen(0, host, () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/**
 * Closes a server the way `stop()` promises: no new connections, idle keep-alive sockets (the AWS SDK
 * keeps some) dropped at once, and requests still running cut after a short grace period.
 */
export function closeServer(server: Server, close: (done: (error?: Error) => void) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const grace = setTimeout(() => server.closeAllConnections(), 1_000);
    grace.unref();
    close((error) => {
      clearTimeout(grace);
      if (error && (error as NodeJS.ErrnoException).code !== 'ERR_SERVER_NOT_RUNNING') reject(error);
      else resolve();
    });
    server.closeIdleConnections();
  });
}
