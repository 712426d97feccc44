import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { ModelServer } from '../../../support/model-servers/http';

/** One model server for a test file: started before, reset before each test, closed after. */
export function useModelServer(start: () => Promise<ModelServer>): () => ModelServer {
  let server: ModelServer | undefined;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(async () => {
    await server?.close();
  });
  beforeEach(() => {
    server?.requests.splice(0);
    server?.setDefault({});
  });
  return () => {
    if (!server) throw new Error('The model server has not started');
    return server;
  };
}
