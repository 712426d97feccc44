/**
 * DynamoDB API of the local emulators: dynalite on a LevelDB store under the data dir (the catalog's
 * tables are created by ./catalog-resources.ts). dynalite@4 has no TransactWriteItems and no TTL.
 */
import type { RequestListener } from 'node:http';
import dynalite from 'dynalite';
import { type TableCacheCounts, withTableCache } from './dynalite-caches';
import { closeServer, httpUrl, listenEphemeral, type RunningService } from './http-server';

export interface RunningDynamoDb extends RunningService {
  /** dynalite's HTTP request listener, for callers that hand it requests without a socket. */
  listener: RequestListener;
  /** How often dynalite's item calls found their table's description in its cache (dynalite-caches.ts). */
  tableCache: TableCacheCounts;
}

export async function startDynamoDb(path: string, host: string): Promise<RunningDynamoDb> {
  // Tables become ACTIVE at once instead of after dynalite's default 500 ms.
  const { started: server, counts } = withTableCache(() =>
    dynalite({ path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 }),
  );
  const port = await listenEphemeral(server, host);
  const endpoint = httpUrl(host, port);
  return {
    endpoint,
    listener: server.listeners('request')[0] as RequestListener,
    tableCache: counts,
    stop: () => {
      // dynalite's own close stops the HTTP server, then closes LevelDB, which releases its LOCK file.
      return closeServer(server, (done) => server.close(done));
    },
  };
}
