/**
 * `npm run bench -w packages/endpoints`: throughput of our framework (Node interface and fetch
 * interface under srvx) next to raw node:http, fastify, hono and express, all measured in this one
 * run with autocannon on 127.0.0.1; plus discovery time of 200 controller modules. Bounded well
 * under 3 minutes. Prints a Markdown table and saves it to bench/RESULTS.md.
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type ManagedProcess, spawnManaged } from '@platform/testkit';
import autocannon from 'autocannon';
import { generateControllers } from './generate.js';

const benchDir = fileURLToPath(new URL('.', import.meta.url));
const packageRoot = join(benchDir, '..');

const CONNECTIONS = 100;
const PIPELINING = 10;
const WARMUP_SECONDS = 1;
const MEASURE_SECONDS = 2;
const ROUNDS = 3;
const DISCOVERY_RUNS = 3;
/** Linux reports process CPU time in clock ticks of 1/100 s in /proc/<pid>/stat. */
const CLOCK_TICKS_PER_SECOND = 100;
const MODULES = 200;

const CONTENDERS = [
  { name: 'node:http (baseline)', file: 'node-http.ts' },
  { name: 'endpoints, Node interface', file: 'endpoints-node.ts' },
  { name: 'endpoints, fetch via srvx', file: 'endpoints-srvx.ts' },
  { name: 'fastify', file: 'fastify.ts' },
  { name: 'hono (@hono/node-server)', file: 'hono.ts' },
  { name: 'express', file: 'express.ts' },
] as const;

const ROUTES = [
  { path: '/', body: { hello: 'world' } },
  { path: '/users/42/posts/7', body: { userId: '42', postId: '7' } },
] as const;

interface Measurement {
  requests: number;
  p99: number;
  /** Server CPU time per answered request, in microseconds; undefined where /proc is unavailable. */
  cpuMicros: number | undefined;
}

/** CPU seconds (user + system) the process has used, from /proc; undefined off Linux. */
function cpuSeconds(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

async function startServer(file: string): Promise<{ child: ManagedProcess; base: string }> {
  // One process per server (node with the tsx loader), so /proc/<pid> is the server itself.
  const child = spawnManaged(process.execPath, ['--import', 'tsx', join(benchDir, 'servers', file)]);
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const port = /listening (\d+)/.exec(child.output())?.[1];
    if (port) return { child, base: `http://127.0.0.1:${port}` };
    await delay(50);
  }
  await child.stop();
  throw new Error(`${file} did not start:\n${child.output()}`);
}

async function checkRoute(base: string, route: (typeof ROUTES)[number], name: string): Promise<void> {
  const response = await fetch(`${base}${route.path}`);
  const body = await response.json();
  if (response.status !== 200 || JSON.stringify(body) !== JSON.stringify(route.body)) {
    throw new Error(`${name} answered ${route.path} with ${response.status} ${JSON.stringify(body)}`);
  }
}

async function load(url: string, duration: number, pid: number): Promise<Measurement> {
  const cpuBefore = cpuSeconds(pid);
  const result = await autocannon({ url, connections: CONNECTIONS, pipelining: PIPELINING, duration });
  const cpuAfter = cpuSeconds(pid);
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${url}: ${result.non2xx} non-2xx answers and ${result.errors} errors under load`);
  }
  const cpuMicros =
    cpuBefore === undefined || cpuAfter === undefined || result.requests.total === 0
      ? undefined
      : ((cpuAfter - cpuBefore) * 1e6) / result.requests.total;
  return { requests: result.requests.average, p99: result.latency.p99, cpuMicros };
}

async function measureThroughput(): Promise<Map<string, Measurement>> {
  const best = new Map<string, Measurement>();
  for (let round = 0; round < ROUNDS; round += 1) {
    // Alternate the order so no contender always runs first or last on a shared machine.
    const order = round % 2 === 0 ? [...CONTENDERS] : [...CONTENDERS].reverse();
    for (const contender of order) {
      const { child, base } = await startServer(contender.file);
      try {
        for (const route of ROUTES) {
          await checkRoute(base, route, contender.name);
          await load(`${base}${route.path}`, WARMUP_SECONDS, child.pid);
          const measured = await load(`${base}${route.path}`, MEASURE_SECONDS, child.pid);
          const key = `${contender.name}|${route.path}`;
          const previous = best.get(key);
          if (!previous || measured.requests > previous.requests) best.set(key, measured);
          process.stderr.write(
            `round ${round + 1} ${contender.name} ${route.path}: ${Math.round(measured.requests)} req/s\n`,
          );
        }
      } finally {
        await child.stop();
      }
    }
  }
  return best;
}

/**
 * Startup time over the generated modules, each run in a fresh process; the fastest of a few
 * runs is kept, as the machine is shared. `cold` turns tsx's transform cache off, so every
 * TypeScript module is also compiled during the measured startup.
 */
async function measureDiscovery(extension: 'ts' | 'js', cold: boolean): Promise<number> {
  const dir = join(packageRoot, '.tmp', `bench-discovery-${extension}`);
  generateControllers(dir, MODULES, extension, join(packageRoot, 'src', 'index.js'));
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

function table(results: Map<string, Measurement>): string {
  const lines = [
    '| contender | route | requests/s | vs node:http | p99 latency (ms) | server CPU µs/request | CPU vs node:http |',
    '|:--|:--|--:|--:|--:|--:|--:|',
  ];
  for (const route of ROUTES) {
    const baseline = results.get(`${CONTENDERS[0].name}|${route.path}`);
    for (const contender of CONTENDERS) {
      const measured = results.get(`${contender.name}|${route.path}`);
      if (!measured || !baseline) continue;
      const ratio = (measured.requests / baseline.requests).toFixed(2);
      const cpu = measured.cpuMicros === undefined ? 'n/a' : measured.cpuMicros.toFixed(1);
      const cpuRatio =
        measured.cpuMicros === undefined || baseline.cpuMicros === undefined
          ? 'n/a'
          : (measured.cpuMicros / baseline.cpuMicros).toFixed(2);
      lines.push(
        `| ${contender.name} | \`${route.path}\` | ${Math.round(measured.requests)} | ${ratio} | ${measured.p99} | ${cpu} | ${cpuRatio} |`,
      );
    }
  }
  return lines.join('\n');
}

function verdicts(
  results: Map<string, Measurement>,
  discovery: { js: number; ts: number; tsCold: number },
): string {
  const lines: string[] = [];
  for (const route of ROUTES) {
    const get = (name: string) => results.get(`${name}|${route.path}`);
    const ours = get(CONTENDERS[1].name);
    const baseline = get(CONTENDERS[0].name);
    const fastify = get('fastify');
    if (!ours || !baseline || !fastify) continue;
    const throughputRatio = ours.requests / baseline.requests;
    lines.push(
      `- \`${route.path}\`, by requests/s: Node interface at ${throughputRatio.toFixed(2)} of node:http (target ≥ 0.90: ${throughputRatio >= 0.9 ? 'met' : 'missed'}); ` +
        `${ours.requests > fastify.requests ? 'beats' : 'does not beat'} fastify (${Math.round(ours.requests)} vs ${Math.round(fastify.requests)}).`,
    );
    if (ours.cpuMicros !== undefined && baseline.cpuMicros !== undefined && fastify.cpuMicros !== undefined) {
      // Efficiency: the share of node:http's throughput the same CPU would give us.
      const efficiency = baseline.cpuMicros / ours.cpuMicros;
      lines.push(
        `- \`${route.path}\`, by server CPU per request: Node interface at ${efficiency.toFixed(2)} of node:http's efficiency (target ≥ 0.90: ${efficiency >= 0.9 ? 'met' : 'missed'}); ` +
          `${ours.cpuMicros < fastify.cpuMicros ? 'cheaper than' : 'not cheaper than'} fastify (${ours.cpuMicros.toFixed(1)} vs ${fastify.cpuMicros.toFixed(1)} µs).`,
      );
    }
  }
  const met = (ms: number) => (ms < 1000 ? 'met' : 'missed');
  lines.push(
    `- Discovery of ${MODULES} modules (startup: scan, import, parameter lists, tree; best of ${DISCOVERY_RUNS} fresh processes): ` +
      `${discovery.js.toFixed(0)} ms as JavaScript (target < 1000 ms: ${met(discovery.js)}), ` +
      `${discovery.ts.toFixed(0)} ms as TypeScript with tsx's cache (${met(discovery.ts)}), ` +
      `${discovery.tsCold.toFixed(0)} ms as TypeScript compiled cold by tsx (${met(discovery.tsCold)}).`,
  );
  return lines.join('\n');
}

const loadBefore = loadavg()[0] ?? 0;
const throughput = await measureThroughput();
const discovery = {
  js: await measureDiscovery('js', false),
  tsCold: await measureDiscovery('ts', true),
  ts: await measureDiscovery('ts', false),
};
const report = `# endpoints benchmark

- Date: ${new Date().toISOString()}
- Machine: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, ${process.platform}/${process.arch}; the cores are shared with other work (1-minute load average ${loadBefore.toFixed(1)} before the run, ${(loadavg()[0] ?? 0).toFixed(1)} after), so absolute numbers vary between runs; ratios within one run are what count.
- Command: \`npm run bench -w packages/endpoints\`
- Load: autocannon -c ${CONNECTIONS} -p ${PIPELINING} on 127.0.0.1, ${WARMUP_SECONDS} s warm-up then ${MEASURE_SECONDS} s measured per route, ${ROUNDS} rounds in alternating order, best round kept. Each server runs alone in its own process (\`node --import tsx\`); every answer is checked before loading and every loaded answer was 2xx.
- Server CPU µs/request: user + system CPU time of the server process during the measured window (from /proc), divided by the requests answered. On a shared 2-core machine where autocannon itself needs a core, requests/s is bounded by the load generator and by neighbours; CPU per request is the steadier measure of what each framework costs.
- Routes: \`GET /\` → \`{"hello":"world"}\`; \`GET /users/42/posts/7\` → \`{"userId":"42","postId":"7"}\` (ours: module \`users\`, \`Default.GET(userId, collection, postId)\`; the others: a \`/users/:userId/posts/:postId\` route).

${table(throughput)}

${verdicts(throughput, discovery)}
`;
process.stdout.write(report);
writeFileSync(join(benchDir, 'RESULTS.md'), report);
