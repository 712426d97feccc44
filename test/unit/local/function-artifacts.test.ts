/**
 * What scripts/function-artifacts.ts installs beside a bundle: the packages and their dependency
 * closure, each found where Node would find it from the package that needs it.
 */
import { describe, expect, it } from 'vitest';
import { dependencyClosure } from '../../../scripts/function-artifacts';

const lock = {
  'node_modules/mammoth': { dependencies: { bluebird: '^3', jszip: '^3' } },
  'node_modules/bluebird': {},
  'node_modules/jszip': {
    dependencies: { 'readable-stream': '^2' },
    optionalDependencies: { fsevents: '*' },
  },
  'node_modules/jszip/node_modules/readable-stream': { dependencies: { 'safe-buffer': '^5' } },
  'node_modules/readable-stream': { dependencies: { string_decoder: '^1' } },
  'node_modules/string_decoder': {},
  'node_modules/safe-buffer': {},
  'node_modules/fsevents': {},
  'node_modules/zod': {},
};

describe('dependencyClosure', () => {
  it('takes each dependency from the nearest node_modules up from the package that needs it', () => {
    // Act
    const closure = dependencyClosure(['mammoth'], lock, (path) => path !== 'node_modules/fsevents');

    // Assess: jszip's own readable-stream, not the top-level one (nor its string_decoder).
    expect(closure).toEqual([
      'node_modules/bluebird',
      'node_modules/jszip',
      'node_modules/jszip/node_modules/readable-stream',
      'node_modules/mammoth',
      'node_modules/safe-buffer',
    ]);
  });

  it('keeps an optional dependency the project installed', () => {
    // Act
    const closure = dependencyClosure(['jszip'], lock, () => true);

    // Assess
    expect(closure).toContain('node_modules/fsevents');
  });

  it('refuses a package that package-lock.json does not have, naming it', () => {
    // Act
    const refuse = () => dependencyClosure(['left-pad'], lock, () => true);

    // Assess
    expect(refuse).toThrow('left-pad is to be installed beside a bundle but is not in package-lock.json');
  });
});
