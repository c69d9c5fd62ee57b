/**
 * `npm run bench -w packages/endpoints`: server CPU per request and throughput of our framework
 * (Node interface, and fetch interface under srvx and under @hono/node-server) next to raw node:http,
 * fastify and hono on four routes, all measured in this one run with autocannon on 127.0.0.1; the
 * same contenders' listeners called without sockets; plus discovery time of 200 controller modules
 * and OpenAPI generation for them. Prints Markdown tables and saves them to bench/RESULTS.md.
 *
 * Robust on a shared machine without favouring anyone: every server runs on one core and this
 * process, which drives autocannon, on the other; all servers start first and are warmed up once;
 * then each round loads every route on every contender once, the contenders of a route back to
 * back in a fixed order that runs forwards and backwards by turns, the routes in an order that
 * rotates and reverses between rounds, and the report keeps the median of the rounds.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { LOAD_CORE, onCore, pinProcess, SERVER_CORE } from '@platform/testkit';
import type { ContenderFile } from './contenders/load.js';
import { generateControllers } from './generate.js';
import { checkRoute, LOAD, loadRoute, ROUTES, type Sample, type Server, startServer } from './measure.js';
import {
  cpuTable,
  discoveryVerdict,
  type OpenapiTimes,
  openapiVerdict,
  routeLabel,
  type Samples,
  type SocketlessWindows,
  socketlessTable,
  type TypesFigures,
  table,
  throughputVerdicts,
  typesVerdicts,
} from './report.js';

const benchDir = fileURLToPath(new URL('.', import.meta.url));
const packageRoot = join(benchDir, '..');

// Half a second of warm-up per server and route is plenty for the JIT (a route answers thousands of
// requests in it) and keeps four routes × six contenders × seven rounds near three and a half minutes.
const WARMUP_SECONDS = 0.5;
const MEASURE_SECONDS = 1;
const ROUNDS = 7;
const DISCOVERY_RUNS = 3;
/** Fresh processes per contender for the socketless figures, each measuring five windows per route. */
const SOCKETLESS_ROUNDS = 3;
const MODULES = 200;

const BASELINE = 'node:http (baseline)';
const OURS = 'endpoints, Node interface';
const OURS_FETCH = 'endpoints, fetch via srvx';
const FASTIFY = 'fastify';
const HONO = 'hono (@hono/node-server)';
const OURS_FETCH_HONO = 'endpoints, fetch via @hono/node-server';
const ROLES = {
  baseline: BASELINE,
  ours: OURS,
  oursFetch: OURS_FETCH,
  fastify: FASTIFY,
  hono: HONO,
  oursFetchHono: OURS_FETCH_HONO,
};

/**
 * In the order they are loaded on a route, so that each pair a target compares runs back to back
 * (fastify | ours | node:http, ours via srvx | hono | ours via @hono/node-server): a slow spell of
 * the shared machine, seconds long, then tends to fall on both of a pair.
 */
const CONTENDERS: readonly { name: string; file: ContenderFile }[] = [
  { name: FASTIFY, file: 'fastify' },
  { name: OURS, file: 'endpoints-node' },
  { name: BASELINE, file: 'node-http' },
  { name: OURS_FETCH, file: 'endpoints-srvx' },
  { name: HONO, file: 'hono' },
  { name: OURS_FETCH_HONO, file: 'endpoints-hono-node' },
];

/**
 * The routes' order: rounds go in pairs, forwards then backwards, and each pair starts one place
 * later, so no route keeps the first or last slot (or its neighbour) from round to round.
 */
function roundOrder<T>(items: readonly T[], round: number): T[] {
  const shift = Math.floor(round / 2) % items.length;
  const rotated = [...items.slice(shift), ...items.slice(0, shift)];
  return round % 2 === 0 ? rotated : rotated.reverse();
}

async function measureThroughput(): Promise<Samples> {
  const servers: Server[] = [];
  const samples: Samples = new Map();
  try {
    for (const contender of CONTENDERS) {
      servers.push(await startServer(contender.name, contender.file));
    }
    for (const server of servers) {
      const routes = new Map<string, Sample[]>();
      for (const route of ROUTES) {
        await checkRoute(server, route);
        // One warm-up per server and route, so every contender is measured with its JIT warm.
        await loadRoute(server, route, WARMUP_SECONDS);
        routes.set(routeLabel(route), []);
      }
      samples.set(server.name, routes);
    }
    // Route by route, so the figures a target compares come from windows seconds apart: the
    // machine's slow spells (a neighbour on the host, often with no CPU steal to show for it) then
    // fall on every contender of a route alike rather than on a few whole contenders.
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const route of roundOrder(ROUTES, round)) {
        // Forwards, then backwards: a rotation would part the pairs at its seam.
        for (const server of round % 2 === 0 ? servers : [...servers].reverse()) {
          const sample = await loadRoute(server, route, MEASURE_SECONDS);
          samples.get(server.name)?.get(routeLabel(route))?.push(sample);
          process.stderr.write(
            `round ${round + 1} ${server.name} ${routeLabel(route)}: ${Math.round(sample.requests)} req/s, ${sample.cpuMicros?.toFixed(1) ?? 'n/a'} µs CPU/request\n`,
          );
        }
      }
    }
  } finally {
    await Promise.all(servers.map((server) => server.process.stop()));
  }
  return samples;
}

/**
 * Each contender's listener called without sockets (`bench/socketless.ts`), in a fresh process per
 * round on the server core, the contenders forwards then backwards by round.
 */
async function measureSocketless(): Promise<SocketlessWindows> {
  const windows: SocketlessWindows = new Map(CONTENDERS.map(({ name }) => [name, new Map()]));
  for (let round = 0; round < SOCKETLESS_ROUNDS; round += 1) {
    for (const { name, file } of round % 2 === 0 ? CONTENDERS : [...CONTENDERS].reverse()) {
      const { stdout } = await promisify(execFile)(
        ...onCore(SERVER_CORE, process.execPath, ['--import', 'tsx', join(benchDir, 'socketless.ts'), file]),
      );
      const byRoute = JSON.parse(stdout.trim()) as Record<string, number[]>;
      const ofContender = windows.get(name) as Map<string, number[]>;
      for (const [label, values] of Object.entries(byRoute)) {
        ofContender.set(label, [...(ofContender.get(label) ?? []), ...values]);
      }
      process.stderr.write(`socketless round ${round + 1} ${name}: ${stdout.trim()}\n`);
    }
  }
  return windows;
}

/**
 * Startup time over the generated modules, each run in a fresh process; the fastest of a few
 * runs is kept, as the machine is shared. `cold` turns tsx's transform cache off, so every
 * TypeScript module is also compiled during the measured startup.
 */
async function measureDiscovery(extension: 'ts' | 'js', cold: boolean): Promise<number> {
  const dir = join(packageRoot, '.tmp', `bench-discovery-${extension}`);
  generateControllers(dir, MODULES, extension, join(packageRoot, 'dist', 'src', 'index.js'));
  const env = cold ? { ...process.env, TSX_DISABLE_CACHE: '1' } : process.env;
  let best = Number.POSITIVE_INFINITY;
  for (let run = 0; run < DISCOVERY_RUNS; run += 1) {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', join(benchDir, 'discovery.ts'), dir],
      { env },
    );
    const { elapsedMs, routes } = JSON.parse(stdout.trim()) as { elapsedMs: number; routes: number };
    if (routes !== MODULES * 2) throw new Error(`discovery found ${routes} routes, expected ${MODULES * 2}`);
    best = Math.min(best, elapsedMs);
  }
  return best;
}

/**
 * OpenAPI generation for the generated modules, each run in a fresh process; of a few runs, the
 * lowest cold (first) and warm figures are kept, in CPU time and in wall time.
 */
async function measureOpenapi(): Promise<OpenapiTimes> {
  const dir = join(packageRoot, '.tmp', 'bench-discovery-ts');
  generateControllers(dir, MODULES, 'ts', join(packageRoot, 'dist', 'src', 'index.js'));
  const runs: OpenapiTimes[] = [];
  for (let run = 0; run < DISCOVERY_RUNS; run += 1) {
    const { stdout } = await promisify(execFile)(process.execPath, [
      '--import',
      'tsx',
      join(benchDir, 'openapi.ts'),
      dir,
    ]);
    const result = JSON.parse(stdout.trim()) as OpenapiTimes & { paths: number };
    if (result.paths !== MODULES * 2)
      throw new Error(`the document has ${result.paths} paths, expected ${MODULES * 2}`);
    runs.push(result);
  }
  const lowest = (key: keyof OpenapiTimes) => Math.min(...runs.map((run) => run[key]));
  return {
    coldCpuMs: lowest('coldCpuMs'),
    coldWallMs: lowest('coldWallMs'),
    warmCpuMs: lowest('warmCpuMs'),
    warmWallMs: lowest('warmWallMs'),
  };
}

/** Issue 37's rows, in a process of their own (bench/types.ts). */
async function measureTypes(): Promise<TypesFigures> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', join(benchDir, 'types.ts')],
    { cwd: packageRoot },
  );
  return JSON.parse(stdout) as TypesFigures;
}

/**
 * Rows named on the command line run alone (`npm run bench -w packages/endpoints -- types`): their
 * verdicts go to standard output, and RESULTS.md, which holds a whole run, is left as it is.
 */
const GROUPS = ['types'] as const;
const selected = process.argv.slice(2);
for (const name of selected) {
  if (!(GROUPS as readonly string[]).includes(name)) {
    throw new Error(`unknown bench rows '${name}' (rows that run alone: ${GROUPS.join(', ')})`);
  }
}
if (selected.includes('types')) {
  const loadBefore = loadavg()[0] ?? 0;
  const started = Date.now();
  const verdicts = typesVerdicts(await measureTypes());
  process.stdout.write(
    `# endpoints benchmark: issue 37's rows\n\n- Date: ${new Date().toISOString()} (took ${Math.round((Date.now() - started) / 1000)} s)\n` +
      `- Machine: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}; 1-minute load average ${loadBefore.toFixed(1)} before, ${(loadavg()[0] ?? 0).toFixed(1)} after\n` +
      `- Command: \`npm run bench -w packages/endpoints -- types\`\n\n${verdicts.join('\n')}\n`,
  );
  process.exit(0);
}

const loadBefore = loadavg()[0] ?? 0;
const started = Date.now();
// Issue 37's rows first, before this process is pinned to the load core: a child inherits the pinning,
// and the commands they time (endpoints openapi --project, tsc) run on every core a user's machine has.
const types = await measureTypes();
pinProcess(process.pid, LOAD_CORE);
const throughput = await measureThroughput();
const socketless = await measureSocketless();
const discovery = {
  js: await measureDiscovery('js', false),
  tsCold: await measureDiscovery('ts', true),
  ts: await measureDiscovery('ts', false),
};
const openapi = await measureOpenapi();
/** The tables' order: the baseline first, then ours, then the others. */
const names = [BASELINE, OURS, OURS_FETCH, FASTIFY, HONO, OURS_FETCH_HONO];
const verdicts = [
  ...throughputVerdicts(throughput, ROLES, ROUTES),
  discoveryVerdict(MODULES, DISCOVERY_RUNS, discovery),
  openapiVerdict(MODULES, DISCOVERY_RUNS, openapi),
  ...typesVerdicts(types),
];
const report = `# endpoints benchmark

- Date: ${new Date().toISOString()} (run took ${Math.round((Date.now() - started) / 1000)} s)
- Machine: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, ${process.platform}/${process.arch}; the cores are shared with other work (1-minute load average ${loadBefore.toFixed(1)} before the run, ${(loadavg()[0] ?? 0).toFixed(1)} after), so absolute numbers vary between runs; ratios within one run are what count.
- Command: \`npm run bench -w packages/endpoints\`
- Load, the same for every contender: autocannon -c ${LOAD.connections} -p ${LOAD.pipelining} on 127.0.0.1. Every server runs pinned to core ${SERVER_CORE} and autocannon (in the bench's own process) to core ${LOAD_CORE} (\`taskset\`), so neither pays for the other's work. All servers start first, each alone in its own process (\`node --import tsx bench/serve.ts <contender>\`), every one an \`http.createServer\` around the contender's \`(req, res)\` listener (srvx's Node handler, @hono/node-server's \`getRequestListener\`, fastify's handler through \`serverFactory\`), and each route of each server gets one ${WARMUP_SECONDS} s warm-up. Then ${ROUNDS} interleaved rounds: every round loads each route on every contender for ${MEASURE_SECONDS} s, the contenders of a route back to back, the contenders in a fixed order that puts each compared pair side by side (fastify, ours, node:http, ours via srvx, hono, ours via @hono/node-server), forwards in one round and backwards in the next, the routes in an order that runs forwards then backwards in pairs of rounds, each pair starting one route later. Every figure below is the median of the ${ROUNDS} rounds. Every answer is checked before loading and every loaded answer was 2xx.
- Server CPU µs/request: CPU time of the server process (all its threads, in nanoseconds from /proc/<pid>/task/*/schedstat) during the measured window, divided by the requests answered. On a shared 2-core machine where autocannon itself needs a core, requests/s is bounded by the load generator and by neighbours; CPU per request is the steadier measure of what each framework costs. The range column shows the lowest and highest round.
- Routes: \`GET /\` → \`{"hello":"world"}\`; \`GET /users/42/posts/7\` → \`{"userId":"42","postId":"7"}\` (ours: module \`users\`, \`Default.GET(userId, collection, postId)\`; the others: a \`/users/:userId/posts/:postId\` route); \`GET /search?q=books&page=2&size=10\` → \`{"q":"books","page":2,"size":10}\` (ours: keywords \`{ q, page = 1, size = 20 }\` with \`static types = { GET: { page: Number, size: Number } }\`; fastify: a querystring JSON schema, which ajv coerces; node:http and hono: \`Number()\` by hand); \`POST /users\` with the JSON body \`{"name":"Lin","age":30}\` → the same object (ours: \`POST({ name, age })\` with \`static types = { POST: { age: Number } }\`; fastify: a body schema; node:http and hono: parsed and checked by hand).

Server CPU per request (median of the rounds; in brackets, the ratio to node:http):

${cpuTable(throughput, ROLES, ROUTES)}

Every contender and route in full:

${table(throughput, names, ROUTES)}

Without sockets (no target; \`bench/socketless.ts\`): each contender's listener called on Node's own request and response objects with no socket under them, ${SOCKETLESS_ROUNDS} fresh processes per contender on core ${SERVER_CORE}, five windows of 20,000 requests per route in each after three to warm up; the median window's CPU time per request (all threads, from \`process.cpuUsage\`). This is what each framework and adapter costs above Node's objects and the writing of the answer into them; the parser, the socket and the kernel, which every contender pays alike, are left out. On loopback those are most of a request (above, node:http's whole request), which is why the socket figures can hardly tell apart contenders whose own costs differ by a quarter.

${socketlessTable(socketless, ROLES, ROUTES)}

${verdicts.join('\n')}
`;
process.stdout.write(report);
writeFileSync(join(benchDir, 'RESULTS.md'), report);
