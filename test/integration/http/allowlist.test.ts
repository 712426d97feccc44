/**
 * The guarded client with `OUTBOUND_ALLOWLIST` entries against real servers on 127.0.0.1: a listed
 * address and port is reached; the same address on another port is refused before any connection
 * (the second server never sees a request).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedHttpClient, OutboundRequestRefusedError } from '../../../adapters/http/guarded-client';
import { OutboundAllowlist } from '../../../core/net/allowlist';
import { startTestServer, type TestServer } from './server';
import { guardedHttpClient } from '../../../functions/wiring/outbound';
import { changeSettings } from '../../support/settings';

let listed: TestServer;
let unlisted: TestServer;

beforeAll(async () => {
  listed = await startTestServer();
  unlisted = await startTestServer();
});

afterAll(async () => {
  await listed.close();
  await unlisted.close();
});

const get = (url: string) => ({ url, method: 'GET', timeoutInMs: 5_000, maxResponseBytes: 1024 * 1024 });

describe('the guarded client with an allowlist', () => {
  it('reaches a listed address and port, and refuses the same address on another port', async () => {
    // Prepare
    const client = createGuardedHttpClient({
      allowlist: OutboundAllowlist.parse(`127.0.0.1:${listed.port}`),
    });

    // Act
    const reached = await client.request(get(`${listed.origin}/json`));
    const refused = client.request(get(`${unlisted.origin}/json`));

    // Assess
    expect(reached.status).toBe(200);
    await expect(refused).rejects.toBeInstanceOf(OutboundRequestRefusedError);
    expect(unlisted.seen).toHaveLength(0);
  });

  it('reaches a listed name and the addresses it resolves to', async () => {
    // Prepare
    const client = createGuardedHttpClient({
      allowlist: OutboundAllowlist.parse(`receiver.test:${listed.port}`),
      resolve: async () => [{ address: '127.0.0.1', family: 4 }],
    });

    // Act
    const reached = await client.request(get(`http://receiver.test:${listed.port}/json`));

    // Assess
    expect(reached.status).toBe(200);
  });

  it("takes the service's OUTBOUND_ALLOWLIST when made by the wiring", async () => {
    // Prepare
    changeSettings({ OUTBOUND_ALLOWLIST: `127.0.0.0/8:${listed.port}` });
    const client = guardedHttpClient({});
    changeSettings({ OUTBOUND_ALLOWLIST: undefined });

    // Act
    const reached = await client.request(get(`${listed.origin}/json`));

    // Assess
    expect(reached.status).toBe(200);
  });
});
