/**
 * `npm run cost`: the AWS cost of a million runs of a few typical workflows, item by item, from
 * the dated price table (support/cost/prices.ts) and the calls the runs were measured to make on
 * the local emulators (support/cost/measure.ts). `COST_RUNS` (default 20) runs are measured per workflow.
 */
import { costOfMillionRuns, totalOf, type Usage } from '../../support/cost/model';
import { measureWorkflows } from '../../support/cost/measure';
import { prices } from '../../support/cost/prices';

const runs = Number(process.env.COST_RUNS ?? 20);
const measured = await measureWorkflows({ runs });

const money = (usd: number) => `$${usd.toFixed(usd < 1 ? 3 : 2)}`;
const quantity = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(3));

function callsLine(usage: Usage): string {
  return Object.entries(usage.calls)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([call, count]) => `${call} ${quantity(count / usage.runs)}`)
    .join(', ');
}

console.log(
  `AWS cost of 1 million runs (${prices.region} list prices as of ${prices.asOf}, no free tier; ` +
    `calls measured over ${runs} runs of each on the local emulators)`,
);
for (const [name, usage] of measured) {
  const items = costOfMillionRuns(usage, prices);
  console.log(`\n${name}: ${money(totalOf(items))} per million runs`);
  for (const item of items) {
    console.log(
      `  ${item.item.padEnd(36)} ${quantity(item.perRun).padStart(9)} ${item.unit.padEnd(11)} ${money(item.usdPerMillionRuns).padStart(9)}`,
    );
  }
  console.log(`  calls per run: ${callsLine(usage)}`);
}
console.log(
  '\nLambda and Express durations are the local ones, at each function’s configured memory; ' +
    'CloudWatch Logs, data transfer, storage and the model provider’s own price are not included.',
);
// The embedded stack keeps handles (pollers, sandbox threads) that stop with the service; nothing else is left.
process.exit(0);
