/**
 * Questions to a `.cpuprofile` that the layer table does not answer, per run:
 *
 *   tsx bench/profile-query.ts <file> files [--runs n] [--match re]      self time by script
 *   tsx bench/profile-query.ts <file> functions [--runs n] [--match re]  self time by function
 *   tsx bench/profile-query.ts <file> total <re> [--runs n]               time with a function matching
 *                                                                          <re> (name or script) on the stack
 *   tsx bench/profile-query.ts <file> callers <re> [--runs n]            where the self time of the
 *                                                                          functions matching <re> is called from
 *
 * `--runs` divides the figures (default: 6,000, what `npm run bench:profile` sends); `--match`
 * keeps the rows whose name or script matches. Node's own frames count as themselves here.
 */
import { readFileSync } from 'node:fs';
import type { ProfileNode } from './profile-layers';

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, command, pattern] = process.argv.slice(2);
const option = (name: string) => {
  const index = process.argv.indexOf(name);
  return index > 0 ? process.argv[index + 1] : undefined;
};
const runs = Number(option('--runs') ?? 6000);
const match = option('--match');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parentOf = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
const selfMs = new Map<number, number>();
profile.samples.forEach((id, index) => {
  selfMs.set(id, (selfMs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000);
});

const shortUrl = (url: string) =>
  url
    .replace(/^.*node_modules\//, '~/')
    .replace(/^file:\/\/.*\/(?=(?:core|adapters|functions|local|catalog|lib|bench)\/)/, '');
const label = (node: ProfileNode) =>
  `${node.callFrame.functionName || '(anonymous)'} ${shortUrl(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`;
const isIdle = (node: ProfileNode) => node.callFrame.functionName === '(idle)';

function print(rows: Map<string, number>, limit = 40) {
  const filter = match ? new RegExp(match) : undefined;
  const sorted = [...rows].filter(([name]) => !filter || filter.test(name)).sort((a, b) => b[1] - a[1]);
  for (const [name, ms] of sorted.slice(0, limit))
    console.log(`${((ms / runs) * 1000).toFixed(1).padStart(8)} µs  ${name}`);
}

function stackOf(id: number): ProfileNode[] {
  const stack: ProfileNode[] = [];
  for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) stack.push(byId.get(at)!);
  return stack;
}

const rows = new Map<string, number>();
const add = (key: string, ms: number) => rows.set(key, (rows.get(key) ?? 0) + ms);
let busyMs = 0;
for (const [id, ms] of selfMs) if (!isIdle(byId.get(id)!)) busyMs += ms;
console.log(`busy ${(busyMs / runs).toFixed(3)} ms per run over ${runs} runs`);

if (command === 'files' || command === 'functions') {
  for (const [id, ms] of selfMs) {
    const node = byId.get(id)!;
    if (isIdle(node)) continue;
    add(command === 'files' ? shortUrl(node.callFrame.url) || node.callFrame.functionName : label(node), ms);
  }
  print(rows);
} else if (command === 'total') {
  const wanted = new RegExp(pattern);
  const seen = new Map<string, number>();
  for (const [id, ms] of selfMs) {
    const keys = new Set(
      stackOf(id)
        .map(label)
        .filter((name) => wanted.test(name)),
    );
    for (const key of keys) seen.set(key, (seen.get(key) ?? 0) + ms);
  }
  for (const [key, ms] of seen) add(key, ms);
  print(rows);
} else if (command === 'callers') {
  const wanted = new RegExp(pattern);
  for (const [id, ms] of selfMs) {
    const stack = stackOf(id);
    if (!wanted.test(label(stack[0]))) continue;
    // The nearest frame on the stack that is not itself a match nor Node's own.
    const caller = stack.find(
      (node) =>
        !wanted.test(label(node)) &&
        /^file:/.test(node.callFrame.url) &&
        !/node_modules/.test(node.callFrame.url),
    );
    add(`${label(stack[0])}  <-  ${caller ? label(caller) : '(none)'}`, ms);
  }
  print(rows);
} else {
  console.error(
    'usage: tsx bench/profile-query.ts <file.cpuprofile> files|functions|total <re>|callers <re>',
  );
  process.exitCode = 1;
}
