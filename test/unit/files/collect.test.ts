import { describe, expect, it } from 'vitest';
import { filesIn, maxLoggedFiles, withFreshFileUrls } from '../../../core/files/collect';

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
    const output = { report: file('file_a'), list: [1, { nested: file('file_b') }], text: 'x' };

    // Act
    const fresh = await withFreshFileUrls(output, async (key) => `https://fresh/${key}`);

    // Assess
    expect(fresh).toEqual({
      report: { ...file('file_a'), url: 'https://fresh/files/ws/e/file_a/a.txt' },
      list: [1, { nested: { ...file('file_b'), url: 'https://fresh/files/ws/e/file_b/a.txt' } }],
      text: 'x',
    });
    expect(output.report.url).toBe('https://s3/file_a');
  });

  it('returns a value without files, or without a presigner, as it is', async () => {
    // Prepare
    const plain = { a: [1, 2] };
    const withFile = { f: file('file_a') };

    // Act
    const [first, second] = await Promise.all([
      withFreshFileUrls(plain, async () => 'never'),
      withFreshFileUrls(withFile, undefined),
    ]);

    // Assess
    expect(first).toBe(plain);
    expect(second).toBe(withFile);
  });
});
