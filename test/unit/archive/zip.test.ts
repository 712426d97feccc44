/** Reading a user's ZIP archive: its files as text, and every defence a 4xx naming the entry or limit. */
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { defaultZipLimits, readZipArchive } from '../../../adapters/archive/zip';

const text = (value: unknown) => strToU8(JSON.stringify(value));

describe('readZipArchive', () => {
  it("gives every file's path and text, folders left out", () => {
    // Prepare
    const archive = zipSync({
      '_workspace.json': text({ workspace: { name: 'Team' } }),
      'Sales/': {},
      'Sales/Lead-1.json': text({ state: { blocks: {} } }),
    });

    // Act
    const entries = readZipArchive(archive);

    // Assess
    expect(entries).toEqual([
      { path: '_workspace.json', text: '{"workspace":{"name":"Team"}}' },
      { path: 'Sales/Lead-1.json', text: '{"state":{"blocks":{}}}' },
    ]);
  });

  it('refuses a body that is no ZIP archive with 400', () => {
    // Act
    const read = () => readZipArchive(strToU8('{"not":"a zip"}'));

    // Assess
    expect(read).toThrow(
      expect.objectContaining({ statusCode: 400, message: expect.stringMatching(/not a readable ZIP/) }),
    );
  });

  it('refuses an entry whose compressed data is broken with 400 naming the entry', () => {
    // Prepare
    const archive = zipSync({ 'broken.json': text({ padding: 'x'.repeat(2000) }) }, { level: 9 });
    const dataStart = 30 + 'broken.json'.length;
    // BFINAL 1, BTYPE 11: a block type DEFLATE reserves.
    archive[dataStart] = 0xff;

    // Act
    const read = () => readZipArchive(archive);

    // Assess
    expect(read).toThrow(
      expect.objectContaining({
        statusCode: 400,
        details: [expect.objectContaining({ path: 'broken.json' })],
      }),
    );
  });

  it('refuses an entry that is no UTF-8 text with 400 naming it', () => {
    // Prepare
    const archive = zipSync({ 'binary.json': new Uint8Array([0xc3, 0x28, 0xff]) });

    // Act
    const read = () => readZipArchive(archive);

    // Assess
    expect(read).toThrow(
      expect.objectContaining({ statusCode: 400, message: 'Archive entry binary.json is not UTF-8 text' }),
    );
  });

  it('refuses a ZIP bomb with 413 naming the compression ratio limit', () => {
    // Prepare
    const archive = zipSync({ 'bomb.json': new Uint8Array(4 * 1024 * 1024) }, { level: 9 });

    // Act
    const read = () => readZipArchive(archive);

    // Assess
    expect(read).toThrow(
      expect.objectContaining({
        statusCode: 413,
        message: expect.stringMatching(/over the ratio of 100 to 1/),
      }),
    );
  });

  it('refuses an archive whose entries inflate past the total limit with 413', () => {
    // Prepare
    const files: Record<string, Uint8Array> = {};
    for (let index = 0; index < 4; index += 1) files[`w${index}.json`] = text({ padding: 'y'.repeat(900) });

    // Act
    const read = () => readZipArchive(zipSync(files), { ...defaultZipLimits, maxTotalBytes: 2_000 });

    // Assess
    expect(read).toThrow(
      expect.objectContaining({ statusCode: 413, message: expect.stringMatching(/inflates to more than/) }),
    );
  });

  it('refuses more entries than the limit with 413 naming it', () => {
    // Prepare
    const files: Record<string, Uint8Array> = {};
    for (let index = 0; index < 6; index += 1) files[`w${index}.json`] = text({ index });

    // Act
    const read = () => readZipArchive(zipSync(files), { ...defaultZipLimits, maxEntries: 5 });

    // Assess
    expect(read).toThrow(
      expect.objectContaining({
        statusCode: 413,
        message: 'The archive has more than 5 entries, the most it may have',
      }),
    );
  });

  it('refuses an archive over its size limit before reading it, with 413', () => {
    // Act
    const read = () => readZipArchive(new Uint8Array(defaultZipLimits.maxArchiveBytes + 1));

    // Assess
    expect(read).toThrow(
      expect.objectContaining({ statusCode: 413, message: expect.stringMatching(/over the 4 MB/) }),
    );
  });
});
