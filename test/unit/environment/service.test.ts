import { describe, expect, it } from 'vitest';
import { ForbiddenError, NotFoundError, ValidationError } from '../../../core/errors';
import {
  deleteEnvironmentVariable,
  listEnvironmentVariables,
  loadEnvironment,
  setEnvironmentVariable,
} from '../../../core/environment/service';
import { MAX_ENVIRONMENT_VARIABLES } from '../../../core/environment/rules';
import { environmentFixture, principal } from './fakes';

const ws = 'ws_1';
const admin = principal('usr_admin');
const writer = principal('usr_writer');
const reader = principal('usr_reader');
const stranger = principal('usr_stranger');

function fixture() {
  return environmentFixture([
    [ws, admin.user.id, 'admin'],
    [ws, writer.user.id, 'write'],
    [ws, reader.user.id, 'read'],
    ['ws_other', stranger.user.id, 'admin'],
  ]);
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

describe('setEnvironmentVariable', () => {
  it('creates, then replaces, storing only ciphertext', async () => {
    const { deps, store } = fixture();
    const first = await setEnvironmentVariable(deps, writer, {
      workspaceId: ws,
      name: 'API_KEY',
      value: 'sk-1111',
    });
    expect(first).toEqual({
      created: true,
      variable: { name: 'API_KEY', updatedAt: '2030-01-02T03:04:05.000Z', updatedBy: writer.user.id },
    });
    const second = await setEnvironmentVariable(deps, admin, {
      workspaceId: ws,
      name: 'API_KEY',
      value: 'sk-2222',
    });
    expect(second.created).toBe(false);
    expect(second.variable.updatedBy).toBe(admin.user.id);
    const stored = [...store.items.values()];
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain('sk-2222');
    expect(JSON.stringify(stored)).not.toContain('sk-1111');
    expect(stored[0].ciphertext.startsWith('env1.')).toBe(true);
  });

  it('keeps createdAt when a value is replaced', async () => {
    const { deps, store } = fixture();
    await setEnvironmentVariable(deps, writer, { workspaceId: ws, name: 'A', value: 'one1' });
    const createdAt = [...store.items.values()][0].createdAt;
    deps.now = () => new Date('2031-01-01T00:00:00.000Z');
    await setEnvironmentVariable(deps, writer, { workspaceId: ws, name: 'A', value: 'two2' });
    expect([...store.items.values()][0]).toMatchObject({ createdAt, updatedAt: '2031-01-01T00:00:00.000Z' });
  });

  it('is 404 for a non-member and 403 for a read member', async () => {
    const { deps, store } = fixture();
    const input = { workspaceId: ws, name: 'API_KEY', value: 'sk-1111' };
    expect(await rejection(setEnvironmentVariable(deps, stranger, input))).toBeInstanceOf(NotFoundError);
    expect(await rejection(setEnvironmentVariable(deps, reader, input))).toBeInstanceOf(ForbiddenError);
    expect(store.items.size).toBe(0);
  });

  it('refuses bad names with a 400 naming the field', async () => {
    const { deps } = fixture();
    for (const name of ['lower', '1ST', 'WITH-DASH', 'WITH SPACE', 'É', '', 'A'.repeat(129)]) {
      const error = await rejection(
        setEnvironmentVariable(deps, writer, { workspaceId: ws, name, value: 'v' }),
      );
      expect(error, name).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).details?.[0].path).toBe('name');
    }
    for (const name of ['A', '_', '_PRIVATE', 'A1_B2', 'A'.repeat(128)]) {
      await setEnvironmentVariable(deps, writer, { workspaceId: ws, name, value: 'v' });
    }
  });

  it('accepts values up to 64 KB of UTF-8 and refuses bigger ones, naming value', async () => {
    const { deps } = fixture();
    await setEnvironmentVariable(deps, writer, { workspaceId: ws, name: 'BIG', value: 'x'.repeat(65_536) });
    // 21,846 three-byte characters are 65,538 bytes: over the limit though under 64 K characters.
    const error = await rejection(
      setEnvironmentVariable(deps, writer, { workspaceId: ws, name: 'WIDE', value: '€'.repeat(21_846) }),
    );
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).details?.[0].path).toBe('value');
  });

  it(`holds at most ${MAX_ENVIRONMENT_VARIABLES} variables per workspace, and still replaces at the limit`, async () => {
    const { deps } = fixture();
    for (let index = 0; index < MAX_ENVIRONMENT_VARIABLES; index++) {
      await setEnvironmentVariable(deps, writer, { workspaceId: ws, name: `V${index}`, value: 'value' });
    }
    const error = await rejection(
      setEnvironmentVariable(deps, writer, { workspaceId: ws, name: 'ONE_MORE', value: 'v' }),
    );
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).message).toMatch(/at most 200/);
    await setEnvironmentVariable(deps, writer, { workspaceId: ws, name: 'V0', value: 'replaced' });
    await setEnvironmentVariable(deps, stranger, { workspaceId: 'ws_other', name: 'V0', value: 'elsewhere' });
  });
});

describe('listEnvironmentVariables', () => {
  it('shows values in clear to write and admin members, by name', async () => {
    const { deps } = fixture();
    await setEnvironmentVariable(deps, writer, { workspaceId: ws, name: 'B_TOKEN', value: 'tok-2222' });
    await setEnvironmentVariable(deps, writer, { workspaceId: ws, name: 'A_KEY', value: 'key-1111' });
    for (const who of [writer, admin]) {
      expect(await listEnvironmentVariables(deps, who, ws)).toEqual([
        { name: 'A_KEY', value: 'key-1111', updatedAt: expect.any(String), updatedBy: writer.user.id },
        { name: 'B_TOKEN', value: 'tok-2222', updatedAt: expect.any(String), updatedBy: writer.user.id },
      ]);
    }
  });

  it('never gives a read member the values', async () => {
    const { deps } = fixture();
    await setEnvironmentVariable(deps, writer, { workspaceId: ws, name: 'A_KEY', value: 'key-1111' });
    const listed = await listEnvironmentVariables(deps, reader, ws);
    expect(listed).toEqual([{ name: 'A_KEY', updatedAt: expect.any(String), updatedBy: writer.user.id }]);
    expect(JSON.stringify(listed)).not.toContain('key-1111');
  });

  it('is 404 for a non-member', async () => {
    const { deps } = fixture();
    expect(await rejection(listEnvironmentVariables(deps, stranger, ws))).toBeInstanceOf(NotFoundError);
  });
});

describe('deleteEnvironmentVariable', () => {
  it('deletes, then answers 404 for the absent name', async () => {
    const { deps, store } = fixture();
    await setEnvironmentVariable(deps, writer, { workspaceId: ws, name: 'A_KEY', value: 'key-1111' });
    expect(await deleteEnvironmentVariable(deps, writer, ws, 'A_KEY')).toMatchObject({ name: 'A_KEY' });
    expect(store.items.size).toBe(0);
    expect(await rejection(deleteEnvironmentVariable(deps, writer, ws, 'A_KEY'))).toBeInstanceOf(
      NotFoundError,
    );
  });

  it('is 404 for a non-member and 403 for a read member', async () => {
    const { deps, store } = fixture();
    await setEnvironmentVariable(deps, writer, { workspaceId: ws, name: 'A_KEY', value: 'key-1111' });
    expect(await rejection(deleteEnvironmentVariable(deps, stranger, ws, 'A_KEY'))).toBeInstanceOf(
      NotFoundError,
    );
    expect(await rejection(deleteEnvironmentVariable(deps, reader, ws, 'A_KEY'))).toBeInstanceOf(
      ForbiddenError,
    );
    expect(store.items.size).toBe(1);
  });
});

describe('loadEnvironment', () => {
  it("decrypts all of a workspace's variables and nothing of another's", async () => {
    const { deps } = fixture();
    await setEnvironmentVariable(deps, writer, { workspaceId: ws, name: 'A_KEY', value: 'key-1111' });
    await setEnvironmentVariable(deps, writer, { workspaceId: ws, name: 'EMPTY', value: '' });
    await setEnvironmentVariable(deps, stranger, {
      workspaceId: 'ws_other',
      name: 'OTHER',
      value: 'other-value',
    });
    expect(await loadEnvironment(deps, ws)).toEqual({ A_KEY: 'key-1111', EMPTY: '' });
    expect(await loadEnvironment(deps, 'ws_empty')).toEqual({});
  });

  it('decrypts many variables', async () => {
    const { deps } = fixture();
    for (let index = 0; index < 50; index++) {
      await setEnvironmentVariable(deps, writer, {
        workspaceId: ws,
        name: `V${index}`,
        value: `value-${index}`,
      });
    }
    const environment = await loadEnvironment(deps, ws);
    expect(Object.keys(environment)).toHaveLength(50);
    expect(environment.V42).toBe('value-42');
  });

  it('fails when a stored ciphertext was moved from another workspace', async () => {
    const { deps, store } = fixture();
    await setEnvironmentVariable(deps, stranger, {
      workspaceId: 'ws_other',
      name: 'OTHER',
      value: 'other-value',
    });
    const moved = { ...[...store.items.values()][0], workspaceId: ws };
    await store.putVariable(moved);
    await expect(loadEnvironment(deps, ws)).rejects.toThrow(/could not be decrypted|does not unwrap/);
  });
});
