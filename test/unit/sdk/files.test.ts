/** Which input values the client library turns into file inputs, and which it leaves alone. */
import { Blob as NodeBlob } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { WorkflowClientError } from '../../../sdk/src/index';
import { withFileInputs } from '../../../sdk/src/files';

const dataUri = (mime: string, text: string) => `data:${mime};base64,${Buffer.from(text).toString('base64')}`;

describe('withFileInputs', () => {
  it('converts files at any depth and leaves other values as they are', async () => {
    // Prepare
    const when = new Date('2026-11-25T00:00:00.000Z');
    const url = {
      type: 'url',
      data: 'https://files.example.com/a.pdf',
      name: 'a.pdf',
      mime: 'application/pdf',
    };
    const input = { a: { b: [Buffer.from('x')] }, when, url, n: 1, s: 'text', none: null };

    // Act
    const converted = await withFileInputs(input);

    // Assess
    expect(converted).toEqual({
      a: {
        b: [
          {
            type: 'file',
            data: dataUri('application/octet-stream', 'x'),
            name: 'file',
            mime: 'application/octet-stream',
          },
        ],
      },
      when,
      url,
      n: 1,
      s: 'text',
      none: null,
    });
  });

  it('takes a Blob of node:buffer (Node 16 has no global Blob) and a view into a larger buffer', async () => {
    // Prepare
    const blob = new NodeBlob(['node blob'], { type: 'text/plain' });
    const view = Buffer.from('..middle..').subarray(2, 8);

    // Act
    const converted = await withFileInputs([blob, view]);

    // Assess
    expect(converted).toEqual([
      { type: 'file', data: dataUri('text/plain', 'node blob'), name: 'blob', mime: 'text/plain' },
      {
        type: 'file',
        data: dataUri('application/octet-stream', 'middle'),
        name: 'file',
        mime: 'application/octet-stream',
      },
    ]);
  });

  it('refuses an input that refers to itself, naming where', async () => {
    // Prepare
    const input: Record<string, unknown> = { list: [] };
    (input.list as unknown[]).push(input);

    // Act
    const error = await withFileInputs(input).catch((caught: unknown) => caught);

    // Assess
    expect(error).toBeInstanceOf(WorkflowClientError);
    expect(error).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: 'The input refers to itself at input.list[0]',
    });
  });
});
