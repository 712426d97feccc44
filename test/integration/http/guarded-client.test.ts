/**
 * The guarded client against a real server on 127.0.0.1. Names are resolved by fake resolvers only;
 * refused destinations other than loopback are never contacted (the guard refuses before connecting).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createGuardedHttpClient,
  OutboundRequestFailedError,
  OutboundRequestRefusedError,
  type ResolvedAddress,
} from '../../../adapters/http/guarded-client';
import type { HttpRequest } from '../../../core/net/http';
import {
  closedPort,
  selfSignedCertificate,
  startTestServer,
  startTlsTestServer,
  type TestServer,
} from './server';

let server: TestServer;
let other: TestServer;

beforeAll(async () => {
  server = await startTestServer();
  other = await startTestServer();
});

afterAll(async () => {
  await server.close();
  await other.close();
});

function get(url: string, overrides: Partial<HttpRequest> = {}): HttpRequest {
  return { url, method: 'GET', timeoutInMs: 5_000, maxResponseBytes: 1024 * 1024, ...overrides };
}

/** A resolver that knows only the names it is given and records what it was asked. */
function fakeResolver(table: Record<string, ResolvedAddress[]>) {
  const asked: string[] = [];
  const resolve = async (hostname: string) => {
    asked.push(hostname);
    const addresses = table[hostname];
    if (!addresses)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses;
  };
  return { resolve, asked };
}

async function failureOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('the request did not fail');
}

const text = (body: Uint8Array) => new TextDecoder().decode(body);

describe('guarded client: loopback', () => {
  it('refuses a loopback server by default, without contacting it', async () => {
    const before = server.seen.length;
    const error = await failureOf(createGuardedHttpClient().request(get(`${server.origin}/json`)));

    expect(error).toBeInstanceOf(OutboundRequestRefusedError);
    expect(error.name).toBe('OutboundRequestRefusedError');
    expect(error.message).toBe('Request to 127.0.0.1 refused: it is a loopback address');
    expect(server.seen.length).toBe(before);
  });

  it('refuses encoded forms of the loopback address', async () => {
    const client = createGuardedHttpClient();
    for (const host of ['2130706433', '0177.0.0.1', '0x7f.1', '[::ffff:127.0.0.1]']) {
      const error = await failureOf(client.request(get(`http://${host}:${server.port}/json`)));
      expect(error).toBeInstanceOf(OutboundRequestRefusedError);
    }
    // Mapped loopback stays refused even for a client that allows loopback.
    const error = await failureOf(
      createGuardedHttpClient({ allowLoopback: true }).request(
        get(`http://[::ffff:127.0.0.1]:${server.port}/`),
      ),
    );
    expect(error.message).toBe(
      'Request to [::ffff:7f00:1] refused: it is an IPv4-mapped IPv6 address of a loopback address',
    );
  });

  it('reaches it only with allowLoopback', async () => {
    const response = await createGuardedHttpClient({ allowLoopback: true }).request(
      get(`${server.origin}/json`),
    );

    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.headers['x-answer']).toBe('42');
    expect(JSON.parse(text(response.body))).toEqual({ hello: 'world', list: [1, 2, 3] });
  });

  it('refuses other schemes before anything else', async () => {
    const error = await failureOf(
      createGuardedHttpClient({ allowLoopback: true }).request(get('file:///etc/hosts')),
    );

    expect(error).toBeInstanceOf(OutboundRequestRefusedError);
    expect(error.message).toBe('Request refused: only http and https URLs are allowed, not file:');
  });
});

describe('guarded client: DNS', () => {
  it('refuses a name that resolves to a private address, naming the host but not the address', async () => {
    const { resolve, asked } = fakeResolver({
      'internal.example.test': [{ address: '10.1.2.3', family: 4 }],
    });
    const error = await failureOf(
      createGuardedHttpClient({ resolve, allowLoopback: true }).request(get('http://internal.example.test/')),
    );

    expect(error).toBeInstanceOf(OutboundRequestRefusedError);
    expect(error.message).toBe('Request to internal.example.test refused: it resolves to a private address');
    expect(error.message).not.toContain('10.1.2.3');
    expect(asked).toEqual(['internal.example.test']);
  });

  it('refuses a name when any one of its addresses is forbidden', async () => {
    const { resolve } = fakeResolver({
      'mixed.example.test': [
        { address: '93.184.216.34', family: 4 },
        { address: 'fd00:ec2::254', family: 6 },
      ],
    });
    const error = await failureOf(
      createGuardedHttpClient({ resolve }).request(get('https://mixed.example.test/')),
    );

    expect(error).toBeInstanceOf(OutboundRequestRefusedError);
    expect(error.message).toBe(
      'Request to mixed.example.test refused: it resolves to a cloud metadata address',
    );
  });

  it('refuses a name resolving to loopback by default', async () => {
    const { resolve } = fakeResolver({ 'rebind.example.test': [{ address: '127.0.0.1', family: 4 }] });
    const error = await failureOf(
      createGuardedHttpClient({ resolve }).request(get(`http://rebind.example.test:${server.port}/json`)),
    );

    expect(error.message).toBe('Request to rebind.example.test refused: it resolves to a loopback address');
  });

  it('pins the connection to the checked address and keeps the name in the Host header', async () => {
    const { resolve, asked } = fakeResolver({ 'api.example.test': [{ address: '127.0.0.1', family: 4 }] });
    const client = createGuardedHttpClient({ resolve, allowLoopback: true });
    const before = server.seen.length;

    const response = await client.request(get(`http://api.example.test:${server.port}/echo?x=1`));

    expect(response.status).toBe(200);
    const echoed = JSON.parse(text(response.body));
    expect(echoed.headers.host).toBe(`api.example.test:${server.port}`);
    expect(echoed.query).toEqual({ x: '1' });
    // Resolved once, by the guard; the connection asked nobody else.
    expect(asked).toEqual(['api.example.test']);
    const seen = server.seen.slice(before);
    expect(seen).toHaveLength(1);
    expect(seen[0].remoteAddress).toBe('127.0.0.1');
  });

  it('reports a name that does not resolve', async () => {
    const { resolve } = fakeResolver({});
    const error = await failureOf(
      createGuardedHttpClient({ resolve }).request(get('http://nowhere.example.test/')),
    );

    expect(error).toBeInstanceOf(OutboundRequestFailedError);
    expect(error.name).toBe('OutboundRequestFailedError');
    expect(error.message).toBe('Could not resolve host nowhere.example.test');
  });

  it('counts DNS against the deadline', async () => {
    const resolve = () => new Promise<ResolvedAddress[]>(() => {});
    const started = Date.now();
    const error = await failureOf(
      createGuardedHttpClient({ resolve }).request(
        get('http://slow-dns.example.test/', { timeoutInMs: 150 }),
      ),
    );

    expect(error.message).toBe('Request to slow-dns.example.test timed out after 150 ms');
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('guarded client: limits', () => {
  const client = createGuardedHttpClient({ allowLoopback: true });

  it('caps the size of a response sent without a length', async () => {
    const error = await failureOf(
      client.request(get(`${server.origin}/big?size=5000`, { maxResponseBytes: 1000 })),
    );

    expect(error).toBeInstanceOf(OutboundRequestFailedError);
    expect(error.message).toBe('Response larger than 1000 bytes');
  });

  it('refuses an announced length over the cap at once', async () => {
    const error = await failureOf(
      client.request(get(`${server.origin}/big-declared?size=5000`, { maxResponseBytes: 1000 })),
    );

    expect(error.message).toBe('Response larger than 1000 bytes');
  });

  it('accepts a response of exactly the cap', async () => {
    const response = await client.request(
      get(`${server.origin}/big-declared?size=1000`, { maxResponseBytes: 1000 }),
    );

    expect(response.body.byteLength).toBe(1000);
  });

  it('times out a server that never answers', async () => {
    const started = Date.now();
    const error = await failureOf(client.request(get(`${server.origin}/hang`, { timeoutInMs: 200 })));

    expect(error).toBeInstanceOf(OutboundRequestFailedError);
    expect(error.message).toBe('Request to 127.0.0.1 timed out after 200 ms');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('times out a body that never ends', async () => {
    const error = await failureOf(client.request(get(`${server.origin}/slow-body`, { timeoutInMs: 200 })));

    expect(error.message).toBe('Request to 127.0.0.1 timed out after 200 ms');
  });

  it('falls back to its defaults when a request sets no limits', async () => {
    const strict = createGuardedHttpClient({
      allowLoopback: true,
      defaultMaxResponseBytes: 10,
      defaultTimeoutInMs: 150,
    });

    expect(
      (await failureOf(strict.request(get(`${server.origin}/text`, { maxResponseBytes: 0 })))).message,
    ).toBe('Response larger than 10 bytes');
    expect((await failureOf(strict.request(get(`${server.origin}/hang`, { timeoutInMs: 0 })))).message).toBe(
      'Request to 127.0.0.1 timed out after 150 ms',
    );
  });

  it('stops when the caller cancels', async () => {
    const controller = new AbortController();
    const request = client.request({
      ...get(`${server.origin}/hang`),
      signal: controller.signal,
    } as HttpRequest);
    setTimeout(() => controller.abort(), 50);

    expect((await failureOf(request)).message).toBe('Request to 127.0.0.1 was cancelled');
  });

  it('reports a refused connection without the address', async () => {
    const port = await closedPort();
    const error = await failureOf(client.request(get(`http://127.0.0.1:${port}/`)));

    expect(error).toBeInstanceOf(OutboundRequestFailedError);
    expect(error.message).toBe('Request to 127.0.0.1 failed: connection refused');
  });
});

describe('guarded client: bodies read as they arrive (open)', () => {
  const client = createGuardedHttpClient({ allowLoopback: true });

  /** Reads a body to its end, keeping what arrived before it failed. */
  async function readAll(body: AsyncIterable<Uint8Array>) {
    const pieces: string[] = [];
    try {
      for await (const chunk of body) pieces.push(text(chunk));
      return { pieces };
    } catch (error) {
      return { pieces, error: error as Error };
    }
  }

  it('answers at the headers and hands on what has arrived of a body still being sent', async () => {
    // Act
    const response = await client.open!(get(`${server.origin}/slow-body`, { timeoutInMs: 300 }));
    const { pieces, error } = await readAll(response.body);

    // Assess
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain');
    expect(pieces).toEqual(['partial']);
    expect(error?.message).toBe('Request to 127.0.0.1 timed out after 300 ms');
  });

  it('caps the size of a body while it is read', async () => {
    // Act
    const response = await client.open!(get(`${server.origin}/big?size=5000`, { maxResponseBytes: 1000 }));
    const { pieces, error } = await readAll(response.body);

    // Assess
    expect(pieces.join('').length).toBeLessThanOrEqual(1000);
    expect(error).toBeInstanceOf(OutboundRequestFailedError);
    expect(error?.message).toBe('Response larger than 1000 bytes');
  });

  it('reads a whole body the same as request does', async () => {
    // Act
    const response = await client.open!(get(`${server.origin}/json`));
    const { pieces } = await readAll(response.body);

    // Assess
    expect(JSON.parse(pieces.join(''))).toEqual({ hello: 'world', list: [1, 2, 3] });
  });

  it('refuses a loopback server by default before any body', async () => {
    // Act
    const error = await failureOf(createGuardedHttpClient().open!(get(`${server.origin}/json`)));

    // Assess
    expect(error).toBeInstanceOf(OutboundRequestRefusedError);
  });
});

describe('guarded client: redirects', () => {
  it('does not follow redirects by default: the 3xx is the answer', async () => {
    const client = createGuardedHttpClient({ allowLoopback: true });
    const response = await client.request(get(`${server.origin}/redirect?to=/json`));

    expect(response.status).toBe(302);
    expect(response.headers.location).toBe('/json');
  });

  it('follows redirects up to maxRedirects', async () => {
    const client = createGuardedHttpClient({ allowLoopback: true, maxRedirects: 5 });
    const response = await client.request(get(`${server.origin}/redirect?to=/json`));

    expect(response.status).toBe(200);
    expect(JSON.parse(text(response.body)).hello).toBe('world');
  });

  it('refuses a redirect to a forbidden address', async () => {
    const client = createGuardedHttpClient({ allowLoopback: true, maxRedirects: 5 });
    for (const [target, reason] of [
      [
        'http://169.254.169.254/latest/meta-data/',
        'Request to 169.254.169.254 refused: it is a cloud metadata address',
      ],
      ['http://10.0.0.1/', 'Request to 10.0.0.1 refused: it is a private address'],
      [
        'http://[::ffff:7f00:1]/',
        'Request to [::ffff:7f00:1] refused: it is an IPv4-mapped IPv6 address of a loopback address',
      ],
      ['gopher://127.0.0.1:6379/', 'Request refused: only http and https URLs are allowed, not gopher:'],
    ]) {
      const error = await failureOf(
        client.request(get(`${server.origin}/redirect?to=${encodeURIComponent(target)}`)),
      );
      expect(error).toBeInstanceOf(OutboundRequestRefusedError);
      expect(error.message).toBe(`${reason} (redirected from 127.0.0.1)`);
    }
  });

  it('refuses a redirect to a name that resolves to a private address', async () => {
    const { resolve } = fakeResolver({ 'intranet.example.test': [{ address: '192.168.0.10', family: 4 }] });
    const client = createGuardedHttpClient({ resolve, allowLoopback: true, maxRedirects: 5 });
    const error = await failureOf(
      client.request(
        get(`${server.origin}/redirect?to=${encodeURIComponent('http://intranet.example.test/')}`),
      ),
    );

    expect(error.message).toBe('Request to intranet.example.test refused: it resolves to a private address');
  });

  it('caps the number of redirects', async () => {
    const client = createGuardedHttpClient({ allowLoopback: true, maxRedirects: 3 });
    const before = server.seen.length;
    const error = await failureOf(client.request(get(`${server.origin}/loop/0`)));

    expect(error).toBeInstanceOf(OutboundRequestFailedError);
    expect(error.message).toBe('Too many redirects from 127.0.0.1 (at most 3 followed)');
    expect(server.seen.slice(before).map((seen) => seen.url)).toEqual([
      '/loop/0',
      '/loop/1',
      '/loop/2',
      '/loop/3',
    ]);
  });

  it('turns a POST into a GET on 302 and 303, and keeps it on 307', async () => {
    const client = createGuardedHttpClient({ allowLoopback: true, maxRedirects: 5 });
    const post = (status: number) =>
      client.request(
        get(`${server.origin}/redirect?status=${status}&to=/echo`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"a":1}',
        }),
      );

    for (const status of [302, 303]) {
      const echoed = JSON.parse(text((await post(status)).body));
      expect(echoed.method).toBe('GET');
      expect(echoed.body).toBe('');
      expect(echoed.headers['content-type']).toBeUndefined();
    }
    const kept = JSON.parse(text((await post(307)).body));
    expect(kept.method).toBe('POST');
    expect(kept.body).toBe('{"a":1}');
    expect(kept.headers['content-type']).toBe('application/json');
  });

  it('drops credentials on a redirect to another origin, keeps them on the same one', async () => {
    const client = createGuardedHttpClient({ allowLoopback: true, maxRedirects: 5 });
    const headers = { authorization: 'Bearer secret', cookie: 'mine=1', 'x-custom': 'kept' };

    const same = JSON.parse(
      text((await client.request(get(`${server.origin}/redirect?to=/echo`, { headers }))).body),
    );
    expect(same.headers).toMatchObject(headers);

    const target = encodeURIComponent(`${other.origin}/echo`);
    const cross = JSON.parse(
      text((await client.request(get(`${server.origin}/redirect?to=${target}`, { headers }))).body),
    );
    expect(cross.headers.authorization).toBeUndefined();
    expect(cross.headers.cookie).toBeUndefined();
    expect(cross.headers['x-custom']).toBe('kept');
  });
});

describe('guarded client: headers', () => {
  const client = createGuardedHttpClient({ allowLoopback: true, maxRedirects: 5 });

  it('strips hop-by-hop headers and those Connection names, and sets Host itself', async () => {
    const response = await client.request(
      get(`${server.origin}/echo`, {
        headers: {
          Connection: 'X-Private',
          'X-Private': 'dropped',
          'Keep-Alive': 'timeout=100',
          'Proxy-Authorization': 'Basic Zm9vOmJhcg==',
          TE: 'trailers',
          Upgrade: 'websocket',
          Host: 'evil.example',
          'X-Kept': 'yes',
        },
      }),
    );
    const { headers } = JSON.parse(text(response.body));

    expect(headers['x-private']).toBeUndefined();
    expect(headers['keep-alive']).toBeUndefined();
    expect(headers['proxy-authorization']).toBeUndefined();
    expect(headers.te).toBeUndefined();
    expect(headers.upgrade).toBeUndefined();
    expect(headers.host).toBe(`127.0.0.1:${server.port}`);
    expect(headers['x-kept']).toBe('yes');
    expect(headers['user-agent']).toBe('workflow-service');
  });

  it('strips hop-by-hop headers from responses', async () => {
    const response = await client.request(get(`${server.origin}/hop-by-hop`));

    expect(response.headers.connection).toBeUndefined();
    expect(response.headers['keep-alive']).toBeUndefined();
    expect(response.headers['x-private-hop']).toBeUndefined();
    expect(response.headers['x-kept']).toBe('yes');
  });

  it('keeps no cookies: what a server sets is never sent back', async () => {
    const set = await client.request(get(`${server.origin}/set-cookie`));
    expect(set.headers['set-cookie']).toBe('a=1; Path=/, b=2; Path=/');

    const after = JSON.parse(text((await client.request(get(`${server.origin}/echo`))).body));
    expect(after.headers.cookie).toBeUndefined();

    const redirected = JSON.parse(
      text((await client.request(get(`${server.origin}/redirect?cookie=1&to=/echo`))).body),
    );
    expect(redirected.headers.cookie).toBeUndefined();
  });

  it('reports an invalid header as a failed request', async () => {
    const error = await failureOf(
      client.request(get(`${server.origin}/echo`, { headers: { 'bad header': 'x' } })),
    );

    expect(error).toBeInstanceOf(OutboundRequestFailedError);
    expect(error.message).toMatch(/^Request to 127\.0\.0\.1 failed: /);
  });

  it('sends a body with its length', async () => {
    const response = await client.request(
      get(`${server.origin}/echo`, { method: 'PUT', body: new TextEncoder().encode('héllo') }),
    );
    const echoed = JSON.parse(text(response.body));

    expect(echoed.method).toBe('PUT');
    expect(echoed.body).toBe('héllo');
    expect(echoed.headers['content-length']).toBe('6');
  });
});

const certificate = selfSignedCertificate('api.example.test');

describe.skipIf(!certificate)('guarded client: TLS with a pinned address', () => {
  let tls: TestServer;

  beforeAll(async () => {
    tls = await startTlsTestServer(certificate!);
  });

  afterAll(async () => {
    await tls.close();
  });

  it('sends SNI and checks the certificate against the name, not the address', async () => {
    const { resolve } = fakeResolver({ 'api.example.test': [{ address: '127.0.0.1', family: 4 }] });
    const client = createGuardedHttpClient({ resolve, allowLoopback: true, ca: certificate!.cert });
    const before = tls.seen.length;

    const response = await client.request(get(`https://api.example.test:${tls.port}/echo`));

    expect(response.status).toBe(200);
    expect(JSON.parse(text(response.body)).headers.host).toBe(`api.example.test:${tls.port}`);
    expect(tls.seen.slice(before)[0].servername).toBe('api.example.test');
  });

  it('fails when the certificate does not match the name', async () => {
    const { resolve } = fakeResolver({ 'other.example.test': [{ address: '127.0.0.1', family: 4 }] });
    const client = createGuardedHttpClient({ resolve, allowLoopback: true, ca: certificate!.cert });
    const error = await failureOf(client.request(get(`https://other.example.test:${tls.port}/echo`)));

    expect(error).toBeInstanceOf(OutboundRequestFailedError);
    expect(error.message).toBe(
      'Request to other.example.test failed: TLS certificate error (ERR_TLS_CERT_ALTNAME_INVALID)',
    );
  });

  it('fails on a certificate nobody vouches for', async () => {
    const { resolve } = fakeResolver({ 'api.example.test': [{ address: '127.0.0.1', family: 4 }] });
    const client = createGuardedHttpClient({ resolve, allowLoopback: true });
    const error = await failureOf(client.request(get(`https://api.example.test:${tls.port}/echo`)));

    expect(error.message).toMatch(/^Request to api\.example\.test failed: TLS certificate error \(/);
  });
});
