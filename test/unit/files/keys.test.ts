import { describe, expect, it } from 'vitest';
import { newFileKey, parseFileKey } from '../../../core/files/keys';

const id = `file_${'a1'.repeat(16)}`;

describe('parseFileKey', () => {
  it('reads back every key newFileKey makes, whatever the name', () => {
    // Prepare
    const names = [
      'report.pdf',
      '../../etc/passwd',
      '.hidden',
      '',
      'a/b\\c?.txt',
      'é%2F.txt',
      'x'.repeat(300),
    ];

    // Act
    const made = names.map((name) => newFileKey('ws_a', 'exe-1', name));

    // Assess
    for (const { id: fileId, key } of made)
      expect(parseFileKey(key)).toMatchObject({ workspaceId: 'ws_a', folder: 'exe-1', fileId });
  });

  it('reads workspace, folder, file id and name of an upload key', () => {
    // Act
    const parsed = parseFileKey(`files/ws_a/uploads/${id}/scan 1.pdf`);

    // Assess
    expect(parsed).toEqual({ workspaceId: 'ws_a', folder: 'uploads', fileId: id, name: 'scan 1.pdf' });
  });

  it.each([
    ['a .. segment', `files/ws_a/../ws_b/uploads/${id}/secret.txt`],
    ['a .. segment as the folder', `files/ws_a/../${id}/secret.txt`],
    ['a . segment', `files/ws_a/./uploads/${id}/secret.txt`],
    ['a .. name', `files/ws_a/uploads/${id}/..`],
    ['an empty segment', `files/ws_a//uploads/${id}/secret.txt`],
    ['an encoded slash', `files/ws_a/..%2Fws_b/uploads/${id}/secret.txt`],
    ['encoded dots', `files/ws_a/%2E%2E/uploads/${id}/secret.txt`],
    ['a percent in the name', `files/ws_a/uploads/${id}/a%20b.txt`],
    ['one segment too many', `files/ws_a/uploads/x/${id}/secret.txt`],
    ['a file id of another shape', 'files/ws_a/uploads/file_1/secret.txt'],
    ['a backslash', `files/ws_a\\..\\ws_b/uploads/${id}/secret.txt`],
    ['a leading slash', `/files/ws_a/uploads/${id}/secret.txt`],
    ['another area of the bucket', 'executions/e1/trace.json'],
    ['a trailing slash', `files/ws_a/uploads/${id}/secret.txt/`],
  ])('refuses %s', (_what, key) => {
    // Act
    const parsed = parseFileKey(key);

    // Assess
    expect(parsed).toBeUndefined();
  });
});

describe('newFileKey', () => {
  it('keeps the file under its workspace and folder with a 128-bit id', () => {
    // Act
    const { id: fileId, key } = newFileKey('ws_a', 'uploads', 'big.zip');

    // Assess
    expect(fileId).toMatch(/^file_[0-9a-f]{32}$/);
    expect(key).toBe(`files/ws_a/uploads/${fileId}/big.zip`);
  });

  it('refuses a workspace or folder that would make a key it cannot read back', () => {
    // Act
    const attempts = [
      () => newFileKey('ws/../b', 'uploads', 'a'),
      () => newFileKey('ws_a', '..', 'a'),
      () => newFileKey('', 'uploads', 'a'),
    ];

    // Assess
    for (const attempt of attempts) expect(attempt).toThrow(/Cannot keep a file/);
  });
});
