import { describe, expect, it } from 'vitest';
import { runToCompletion } from '../../../core/engine/run';
import { ValidationError } from '../../../core/errors';
import type { FileAccess } from '../../../core/files/block-access';
import type { FileContent, FileObject } from '../../../core/files/types';
import { block, contextOf, depsOf, edge, graphOf, inProcessRunner } from './fixtures';

/** File access in memory: URLs under https://docs.test/ hold their own path as text. */
function memoryFiles(): FileAccess & { stored: FileObject[] } {
  const stored: FileObject[] = [];
  return {
    stored,
    async load(source, path) {
      if (source.kind === 'bytes') return { name: source.name, type: source.type, bytes: source.bytes };
      if (source.kind === 'stored')
        return { ...source.file, bytes: new Uint8Array(Buffer.from('kept')), stored: source.file };
      if (!source.url.startsWith('https://docs.test/'))
        throw new ValidationError(`File input "${path}": the url is not allowed`, [
          { path, message: 'the url is not allowed' },
        ]);
      return {
        name: source.name ?? 'doc.txt',
        type: 'text/plain',
        bytes: new Uint8Array(Buffer.from(source.url.slice(18))),
      };
    },
    async store(content: FileContent, scope) {
      const file = {
        id: `file_${stored.length}`,
        key: `files/${scope.workspaceId}/${scope.executionId}/file_${stored.length}/${content.name}`,
        name: content.name,
        url: `https://s3.test/${stored.length}`,
        type: content.type,
        size: content.bytes.length,
      };
      stored.push(file);
      return file;
    },
    async read(content) {
      return content.type.startsWith('text/')
        ? { type: content.type, text: Buffer.from(content.bytes).toString() }
        : { type: content.type };
    },
  };
}

const graphReading = (files: unknown) =>
  graphOf(
    [block('s', 'start', 'Start', { inputFormat: [] }), block('f', 'file', 'Read', { files })],
    [edge('s', 'f')],
  );

describe('file block', () => {
  it('stores each file in the run workspace and joins the texts of documents into combinedContent', async () => {
    // Prepare
    const files = memoryFiles();
    const graph = graphReading([
      'https://docs.test/first',
      { name: 'b.bin', base64: 'AAE=', type: 'application/octet-stream' },
      'https://docs.test/second',
    ]);

    // Act
    const result = await runToCompletion(contextOf(graph), { ...depsOf(inProcessRunner()), files });

    // Assess
    const output = result.output as { files: FileObject[]; combinedContent: string };
    expect(output.combinedContent).toBe('first\n\nsecond');
    expect(output.files.map((file) => [file.name, file.type, file.base64])).toEqual([
      ['doc.txt', 'text/plain', Buffer.from('first').toString('base64')],
      ['b.bin', 'application/octet-stream', 'AAE='],
      ['doc.txt', 'text/plain', Buffer.from('second').toString('base64')],
    ]);
    expect(files.stored.every((file) => file.key.startsWith('files/ws-1/exec-1/'))).toBe(true);
  });

  it('keeps a stored file as it is instead of storing it again', async () => {
    // Prepare
    const files = memoryFiles();
    const kept = {
      id: 'file_k',
      key: 'files/ws-1/e/file_k/k.txt',
      name: 'k.txt',
      url: 'https://s3.test/k',
      type: 'text/plain',
      size: 4,
    };

    // Act
    const result = await runToCompletion(contextOf(graphReading(kept)), {
      ...depsOf(inProcessRunner()),
      files,
    });

    // Assess
    expect((result.output as { files: FileObject[] }).files[0]).toMatchObject({
      id: 'file_k',
      key: kept.key,
    });
    expect(files.stored).toHaveLength(0);
  });

  it.each([
    ['no files', '', /has no files/],
    ['a refused URL', 'https://elsewhere.test/x', /File block "Read": .*not allowed/],
  ])('fails the run with a clear error for %s', async (_case, files, message) => {
    // Act
    const result = await runToCompletion(contextOf(graphReading(files)), {
      ...depsOf(inProcessRunner()),
      files: memoryFiles(),
    });

    // Assess
    expect(result.success).toBe(false);
    expect(result.error).toMatch(message);
  });

  it('fails the run saying so when no file store is configured', async () => {
    // Act
    const result = await runToCompletion(
      contextOf(graphReading('https://docs.test/x')),
      depsOf(inProcessRunner()),
    );

    // Assess
    expect(result.error).toMatch(/need a file store/);
  });
});
