import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import {
  InProcessHttpHandler,
  isInProcessEndpoint,
  plainDispatch,
  registerInProcessEndpoint,
  unsignedSigner,
} from '../../../local/transport/in-process-transport';

/** A listener that answers what it was sent, as an emulator reads and answers a request. */
function echoListener(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    res.statusCode = 201;
    res.setHeader('Content-Type', 'application/json');
    res.setHeader('X-Count', 2);
    res.setHeader('X-Dropped', 'x');
    res.removeHeader('x-dropped');
    res.end(
      JSON.stringify({
        method: req.method,
        url: req.url,
        target: req.headers['x-amz-target'],
        body: Buffer.concat(chunks).toString(),
        answered: Object.keys(res.getHeaders()),
      }),
    );
  });
}

const request = (body?: unknown) => ({
  method: 'POST',
  path: '/',
  query: { Action: 'Send', Tag: ['a', 'b'] },
  headers: { 'X-Amz-Target': 'Service.Op' },
  body,
});

describe('InProcessHttpHandler', () => {
  it("hands the SDK's request to the registered listener and answers its status, headers and body", async () => {
    // Prepare
    const unregister = registerInProcessEndpoint('http://127.0.0.1:59001', plainDispatch(echoListener));
    const handler = new InProcessHttpHandler('http://127.0.0.1:59001/');

    // Act
    const { response } = await handler.handle(request('{"a":1}'));
    unregister();

    // Assess
    expect(response.statusCode).toBe(201);
    expect(response.headers).toEqual({ 'content-type': 'application/json', 'x-count': '2' });
    expect(JSON.parse(response.body.toString())).toEqual({
      method: 'POST',
      url: '/?Action=Send&Tag=a&Tag=b',
      target: 'Service.Op',
      body: '{"a":1}',
      answered: ['content-type', 'x-count'],
    });
  });

  it('sends byte and stream bodies', async () => {
    // Prepare
    const unregister = registerInProcessEndpoint('http://127.0.0.1:59002', plainDispatch(echoListener));
    const handler = new InProcessHttpHandler('http://127.0.0.1:59002');
    async function* stream() {
      yield 'str';
      yield new TextEncoder().encode('eam');
    }

    // Act
    const bytes = await handler.handle(request(new TextEncoder().encode('bytes')));
    const streamed = await handler.handle(request(stream()));
    unregister();

    // Assess
    expect(JSON.parse(bytes.response.body.toString()).body).toBe('bytes');
    expect(JSON.parse(streamed.response.body.toString()).body).toBe('stream');
  });

  it('refuses as an unreachable endpoint once the emulator is stopped', async () => {
    // Prepare
    const unregister = registerInProcessEndpoint('http://127.0.0.1:59003', plainDispatch(echoListener));
    const handler = new InProcessHttpHandler('http://127.0.0.1:59003');

    // Act
    unregister();
    const failure = await handler.handle(request()).catch((error: unknown) => error);

    // Assess
    expect(isInProcessEndpoint('http://127.0.0.1:59003')).toBe(false);
    expect(failure).toMatchObject({ code: 'ECONNREFUSED' });
    expect(String(failure)).toContain('http://127.0.0.1:59003 is not running');
  });

  it('is offered only for an endpoint registered in this process', () => {
    // Prepare
    const unregister = registerInProcessEndpoint('http://127.0.0.1:59004', plainDispatch(echoListener));

    // Act
    const offered = {
      registered: isInProcessEndpoint('http://127.0.0.1:59004'),
      otherPort: isInProcessEndpoint('http://127.0.0.1:59005'),
      aws: isInProcessEndpoint('https://dynamodb.us-east-1.amazonaws.com'),
      none: isInProcessEndpoint(undefined),
    };
    unregister();

    // Assess
    expect(offered).toEqual({ registered: true, otherPort: false, aws: false, none: false });
  });
});

describe('unsignedSigner', () => {
  it("gives a request SigV4's headers in their form, without computing a signature", async () => {
    // Prepare
    const signable = { headers: {} as Record<string, string> };

    // Act
    const signed = await unsignedSigner.sign(signable, {
      signingDate: new Date('2026-03-04T05:06:07.890Z'),
      signingRegion: 'us-east-1',
      signingService: 'dynamodb',
    });

    // Assess
    expect(signed.headers).toEqual({
      'x-amz-date': '20260304T050607Z',
      authorization:
        'AWS4-HMAC-SHA256 Credential=local/20260304/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=unsigned',
    });
  });

  it('dates and scopes each request by its own second, region and service', async () => {
    // Prepare
    const sign = (iso: string, service: string) =>
      unsignedSigner.sign(
        { headers: {} as Record<string, string> },
        { signingDate: new Date(iso), signingRegion: 'us-east-1', signingService: service },
      );

    // Act
    const first = await sign('2026-03-04T05:06:07.100Z', 'dynamodb');
    const sameSecond = await sign('2026-03-04T05:06:07.900Z', 'dynamodb');
    const otherService = await sign('2026-03-04T05:06:07.900Z', 'sqs');
    const nextDay = await sign('2026-03-05T00:00:00.000Z', 'sqs');

    // Assess
    expect(sameSecond.headers).toEqual(first.headers);
    expect(otherService.headers.authorization).toContain(
      'Credential=local/20260304/us-east-1/sqs/aws4_request',
    );
    expect(nextDay.headers['x-amz-date']).toBe('20260305T000000Z');
    expect(nextDay.headers.authorization).toContain('Credential=local/20260305/us-east-1/sqs/aws4_request');
  });
});
