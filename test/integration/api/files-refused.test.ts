/**
 * File URLs go through the outbound guard of production (no loopback allowance here): a URL that
 * points at a private address is a 400 naming the field, and the receiver listening there is never
 * reached.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { block, edge, graphOf } from '../../../core/engine/builders';
import { deployedWorkflow, useLocalService } from '../../support/service';

const service = useLocalService();

let receiver: Server;
let port: number;
const received: string[] = [];

beforeAll(async () => {
  receiver = createServer((request, response) => {
    received.push(request.url ?? '');
    response.writeHead(200, { 'content-type': 'text/plain' }).end('private');
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.2', resolve));
  port = (receiver.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => receiver.close(resolve));
});

const echoGraph = graphOf(
  [
    block('start', 'start', 'Start', { inputFormat: [{ name: 'docs', type: 'files', required: true }] }),
    block('respond', 'response', 'Respond', { data: '<start.docs>' }),
  ],
  [edge('start', 'respond')],
);

describe('file URLs to private addresses', () => {
  it.each([
    ['a dotted address', (p: number) => `http://127.0.0.2:${p}/secret.txt`],
    ['a decimal address', (p: number) => `http://2130706434:${p}/secret.txt`],
    ['a hex address', (p: number) => `http://0x7f000002:${p}/secret.txt`],
    ['a mapped IPv6 address', (p: number) => `http://[::ffff:127.0.0.2]:${p}/secret.txt`],
  ])('are refused with a 400 naming the field for %s, and nothing is fetched', async (_name, urlOf) => {
    // Prepare
    const tenant = await service.get().newTenant('refused');
    const workflowId = await deployedWorkflow(tenant, echoGraph);
    const before = received.length;

    // Act
    const urlShape = await tenant.call('POST', `/api/workflows/${workflowId}/execute`, {
      docs: [{ name: 'secret.txt', url: urlOf(port), type: 'text/plain' }],
    });
    const clientShape = await tenant.call('POST', `/api/workflows/${workflowId}/execute`, {
      docs: { type: 'url', data: urlOf(port), name: 'secret.txt', mime: 'text/plain' },
    });

    // Assess
    for (const answer of [urlShape, clientShape]) {
      expect(answer.status).toBe(400);
      expect(answer.body.details[0].path).toBe('docs[0]');
      expect(answer.body.details[0].message).toMatch(/not allowed/);
    }
    expect(received.length).toBe(before);
  });

  it('the receiver does answer when called directly, so the refusal is the guard', async () => {
    // Act
    const response = await fetch(`http://127.0.0.2:${port}/secret.txt`);

    // Assess
    expect(await response.text()).toBe('private');
    received.pop();
  });
});
