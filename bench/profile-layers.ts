/** Sorting a V8 CPU profile's samples into the service's layers (bench/profile.ts prints them). */

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/** Path fragments, first match wins: dependencies by package, the project by folder and file. */
const layers: [pattern: RegExp, layer: string][] = [
  [
    /node_modules\/(dynalite|[^/]*level[^/]*|memdown|lock|lazy|async|big\.js|buffer-crc32)\//,
    'DynamoDB emulator (dynalite, LevelDB)',
  ],
  [/node_modules\/(s3rver|koa[^/]*|@koa)\//, 'S3 emulator (s3rver)'],
  [
    /node_modules\/(fauxqs|fastify|@fastify|avvio|find-my-way|light-my-request)\//,
    'SQS emulator (fauxqs, fastify)',
  ],
  [
    /node_modules\/(@aws-sdk|@smithy|fast-xml-parser|@aws-crypto|bowser|uuid)\//,
    'AWS SDK clients (storage calls)',
  ],
  [/node_modules\/@middy\//, 'middy'],
  [/node_modules\/@aws-lambda-powertools\//, 'logger (powertools)'],
  [/node_modules\/zod\//, 'zod (request and graph schemas)'],
  [/node_modules\/(aws-local-stepfunctions|jsonpath[^/]*|p-limit)\//, 'state machine interpreter'],
  [/node_modules\/(quickjs[^/]*|@jitl)\//, 'sandbox (QuickJS)'],
  [/node_modules\/(tsx|esbuild|get-tsconfig)\//, 'TypeScript loader (tsx)'],
  [/\/local\/(server|lambda-context|form-pages)\.ts/, 'HTTP adapter (local API Gateway)'],
  [/\/local\/emulators\/(step-functions|state-machine)\.ts|\/local\/workers\.ts/, 'state machine driver'],
  [/\/local\/emulators\/(sqs|sqs-journal|queue-poller|schedule-firer)\.ts/, 'local queues and scheduler'],
  [/\/functions\/http\/limits\.ts|\/core\/limits\/|\/functions\/wiring\/limits\.ts/, 'limits (rate, usage)'],
  [
    /\/core\/identity\/|\/functions\/wiring\/identity\.ts|\/functions\/http\/admin-key\.ts/,
    'auth (API keys, users)',
  ],
  [/\/functions\/http\/|\/functions\/wiring\//, 'route wrapper (parse, validate, answer)'],
  [/\/core\/engine\//, 'engine'],
  [/\/adapters\/sandbox\/|\/adapters\/worker/, 'sandbox (QuickJS)'],
  [/\/adapters\/(dynamodb|s3|sqs|aws)\//, 'storage adapters'],
  [
    /\/core\/(runs|jobs|workflows|notifications)\/|\/functions\/(workflows|execution|jobs)\//,
    'run service (prepare, step, finalize)',
  ],
];

const internal = /^(node:|internal\/)|^$|\[native code\]/;

/** The layer a frame's script belongs to, or undefined for Node's own code and V8's pseudo-frames. */
export function layerOf(url: string): string | undefined {
  if (internal.test(url)) return undefined;
  for (const [pattern, layer] of layers) if (pattern.test(url)) return layer;
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  return dependency ? `other dependency (${dependency[1]})` : 'other project code';
}

export interface ProfileSummary {
  busyMs: number;
  idleMs: number;
  layers: { name: string; ms: number }[];
  topFunctions: { name: string; where: string; ms: number }[];
}

const pseudoFrames = new Map([
  ['(garbage collector)', 'garbage collection'],
  ['(program)', 'V8 and native code (no JavaScript on the stack)'],
]);

export function summarize(
  profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] },
  classify: (url: string) => string | undefined,
): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);

  // Each node's layer: its own, else its nearest caller's that has one.
  const layerCache = new Map<number, string>();
  const layerOfNode = (id: number): string => {
    const cached = layerCache.get(id);
    if (cached) return cached;
    const node = byId.get(id)!;
    const pseudo = pseudoFrames.get(node.callFrame.functionName);
    const own = pseudo ?? classify(node.callFrame.url);
    const parent = parentOf.get(id);
    const layer =
      own ?? (parent === undefined ? 'Node internals (sockets, HTTP parsing, timers)' : layerOfNode(parent));
    layerCache.set(id, layer);
    return layer;
  };

  const layerMs = new Map<string, number>();
  const functionMs = new Map<string, { name: string; where: string; ms: number }>();
  let idleMs = 0;
  let busyMs = 0;
  profile.samples.forEach((id, index) => {
    // timeDeltas[i] is the time before sample i; the time after it is the next delta.
    const ms = (profile.timeDeltas[index + 1] ?? 0) / 1000;
    const node = byId.get(id)!;
    if (node.callFrame.functionName === '(idle)') {
      idleMs += ms;
      return;
    }
    busyMs += ms;
    const layer = layerOfNode(id);
    layerMs.set(layer, (layerMs.get(layer) ?? 0) + ms);
    const where = `${shortPath(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`;
    const key = `${node.callFrame.functionName}@${where}`;
    const entry = functionMs.get(key) ?? { name: node.callFrame.functionName || '(anonymous)', where, ms: 0 };
    entry.ms += ms;
    functionMs.set(key, entry);
  });
  return {
    busyMs,
    idleMs,
    layers: [...layerMs].map(([name, ms]) => ({ name, ms })).sort((a, b) => b.ms - a.ms),
    topFunctions: [...functionMs.values()].sort((a, b) => b.ms - a.ms).slice(0, 25),
  };
}

function shortPath(url: string): string {
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) return url.slice(modules + 'node_modules/'.length);
  const project = /\/(adapters|core|functions|local|catalog|bench)\/.*$/.exec(url);
  return project ? project[0].slice(1) : url;
}
