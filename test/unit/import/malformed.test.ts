import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isServiceError } from '../../../core/errors';
import { convertWorkflowFile, readWorkflowFile, toSimExport } from '../../../core/import';
import { fixtureText, noChildren } from './support';

/** A small seeded generator, so a failure names a case that can be run again. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

const oddValues: unknown[] = [
  null,
  0,
  -1,
  1e9,
  '',
  'x',
  '<nowhere.x>',
  '{{',
  [],
  [null],
  {},
  { id: 5 },
  true,
];

/** Every object and array inside the value, with a way to change one member of it. */
function holders(value: unknown, found: Array<Record<string, unknown> | unknown[]> = []) {
  if (value !== null && typeof value === 'object') {
    found.push(value as Record<string, unknown>);
    for (const member of Object.values(value)) holders(member, found);
  }
  return found;
}

function mutate(document: unknown, next: () => number): void {
  const all = holders(document);
  const holder = all[Math.floor(next() * all.length)];
  const keys = Object.keys(holder);
  if (keys.length === 0) return;
  const key = keys[Math.floor(next() * keys.length)];
  const choice = next();
  if (choice < 0.3 && !Array.isArray(holder)) delete (holder as Record<string, unknown>)[key];
  else
    (holder as Record<string, unknown>)[key] = structuredClone(
      oddValues[Math.floor(next() * oddValues.length)],
    );
}

const fixtures = readdirSync(join(__dirname, '..', '..', 'fixtures', 'sim')).filter((name) =>
  name.endsWith('.json'),
);

describe('convertWorkflowFile on damaged Sim files', () => {
  it.each(fixtures)('%s: every damage is converted or refused with a 4xx, never a crash', (fixture) => {
    const next = random(fixture.length * 7919);
    const failures: string[] = [];
    for (let round = 0; round < 60; round += 1) {
      const document = JSON.parse(fixtureText(fixture));
      for (let change = 0; change <= round % 3; change += 1) mutate(document, next);
      try {
        const converted = convertWorkflowFile(readWorkflowFile(document), noChildren);
        toSimExport({ name: 'again', graph: converted.graph });
      } catch (error) {
        if (!isServiceError(error) || error.statusCode < 400 || error.statusCode >= 500) {
          failures.push(`round ${round}: ${(error as Error).stack?.split('\n').slice(0, 3).join(' | ')}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });
});
