import { describe, expect, it } from 'vitest';
import { filesIn, maxLoggedFiles, withFreshFileUrls } from '../../../core/files/collect';

/** File ids of the shape the service makes. */
const idA = `file_${'a'.repeat(32)}`;
const idB = `file_${'b'.repeat(32)}`;

const file = (id: string) => ({
  id,
  key: `files/ws/e/${id}/a.txt`,
  name: 'a.txt',
  url: `https://s3/${id}`,
  type: 'text/plain',
  size: 1,
});

describe('filesIn', () => {
  it('finds file objects at any depth, once each, without base64', () => {
    // Prepare
    const input = { docs: [file('file_a')] };
    const spans = [{ output: { files: [{ ...file('file_b'), base64: 'eA==' }, file('file_a')] } }];

    // Act
    const found = filesIn(input, spans, { deep: { deeper: file('file_c') } });

    // Assess
    expect(found).toEqual([file('file_a'), file('file_b'), file('file_c')]);
  });

  it('is null when there are no files', () => {
    // Act
    const found = filesIn({ name: 'ada' }, [], 'text', null);

    // Assess
    expect(found).toBeNull();
  });

  it('ignores objects that only look like files (no key in the files area)', () => {
    // Act
    const found = filesIn({ id: 'x', key: 'executions/e/checkpoint.json', name: 'n', url: 'u', size: 1 });

    // Assess
    expect(found).toBeNull();
  });

  it('lists at most the cap', () => {
    // Act
    const found = filesIn(Array.from({ length: maxLoggedFiles + 5 }, (_, i) => file(`file_${i}`)));

    // Assess
    expect(found).toHaveLength(maxLoggedFiles);
  });
});

describe('withFreshFileUrls', () => {
  it('presigns the URL of every file object anew and leaves everything else as it was', async () => {
    // Prepare
    const output = { report: file(idA), list: [1, { nested: file(idB) }], text: 'x' };

    // Act
    const fresh = await withFreshFileUrls(output, async (key) => `https://fresh/${key}`, 'ws');

    // Assess
    expect(fresh).toEqual({
      report: { ...file(idA), url: `https://fresh/files/ws/e/${idA}/a.txt` },
      list: [1, { nested: { ...file(idB), url: `https://fresh/files/ws/e/${idB}/a.txt` } }],
      text: 'x',
    });
    expect(output.report.url).toBe(`https://s3/${idA}`);
  });

  it('presigns no file object of another workspace or with a key of another shape, whatever a block put in its output', async () => {
    // Prepare
    const output = {
      other: { ...file(idA), key: `files/ws_other/e/${idA}/a.txt` },
      climbing: { ...file(idA), key: `files/ws/../ws_other/e/${idA}/a.txt` },
      internal: { ...file(idA), key: 'files/ws/e/checkpoint/trace.json' },
    };
    const presigned: string[] = [];

    // Act
    const fresh = await withFreshFileUrls(
      output,
      async (key) => {
        presigned.push(key);
        return `https://fresh/${key}`;
      },
      'ws',
    );

    // Assess
    expect(presigned).toEqual([]);
    expect(fresh).toEqual(output);
  });

  it('returns a value without files, or without a presigner, as it is', async () => {
    // Prepare
    const plain = { a: [1, 2] };
    const withFile = { f: file(idA) };

    // Act
    const [first, second] = await Promise.all([
      withFreshFileUrls(plain, async () => 'never', 'ws'),
      withFreshFileUrls(withFile, undefined, 'ws'),
    ]);

    // Assess
    expect(first).toBe(plain);
    expect(second).toBe(withFile);
  });
});
