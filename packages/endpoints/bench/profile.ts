/**
 * Where a contender's CPU goes under load: `npx tsx bench/profile.ts <server> [seconds] [route…]`,
 * e.g. `npx tsx bench/profile.ts endpoints-node 5 /search?q=books&page=2&size=10`. Starts
 * `bench/serve.ts <server>` (a contender under `bench/contenders/`) with `--cpu-prof`, loads each route (default: the benchmark's four)
 * as the benchmark does, stops it, and prints the self time of the hottest functions and the
 * share of each part of the stack, counting only samples taken under load. The profile itself is
 * kept in `.tmp/profiles/` for Chrome DevTools. The servers import the compiled package, as the
 * benchmark does: `npm run build` first, or the profile is of the last build.
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONTENDER_FILES, isContenderFile } from './contenders/load.js';
import { checkRoute, loadRoute, ROUTES, startServer } from './measure.js';
import { routeLabel } from './report.js';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const benchDir = fileURLToPath(new URL('.', import.meta.url));
const [serverName = 'endpoints-node', secondsArg = '5', ...paths] = process.argv.slice(2);
if (!isContenderFile(serverName))
  throw new Error(`no contender ${serverName}; one of ${CONTENDER_FILES.join(', ')}`);
const seconds = Number(secondsArg);
const routes = paths.length === 0 ? ROUTES : ROUTES.filter((route) => paths.includes(route.path));
if (routes.length === 0) throw new Error(`no benchmark route is ${paths.join(', ')}`);

const profileDir = join(benchDir, '..', '.tmp', 'profiles', `${serverName}-${Date.now()}`);
mkdirSync(profileDir, { recursive: true });
const server = await startServer(serverName, serverName, ['--cpu-prof', `--cpu-prof-dir=${profileDir}`]);
let loadStart = 0;
try {
  for (const route of routes) await checkRoute(server, route);
  // V8 stamps samples with the monotonic clock in µs, the clock process.hrtime reads.
  loadStart = Number(process.hrtime.bigint() / 1000n);
  for (const route of routes) {
    const sample = await loadRoute(server, route, seconds);
    process.stdout.write(
      `${routeLabel(route)}: ${Math.round(sample.requests)} req/s, ${sample.cpuMicros?.toFixed(1)} µs CPU/request\n`,
    );
  }
} finally {
  await server.process.stop();
}

const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
if (!file) throw new Error(`no profile was written to ${profileDir}`);
const profile = JSON.parse(readFileSync(join(profileDir, file), 'utf8')) as CpuProfile;

/** Which part of the stack a function belongs to. */
function partOf(url: string, name: string): string {
  // The servers import the package as production does, compiled (dist/src/); src/ under tsx.
  if (/\/packages\/endpoints\/(dist\/)?src\//.test(url)) return 'endpoints (the framework)';
  if (url.includes('/bench/')) return 'bench handlers';
  const module = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (module) return module;
  if (url.startsWith('node:')) return 'node (JavaScript)';
  if (url === '') return name.startsWith('(') ? name : 'native and builtins';
  return 'other';
}

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const selfMicros = new Map<string, number>();
const partMicros = new Map<string, number>();
let time = profile.startTime;
let total = 0;
profile.samples.forEach((id, index) => {
  time += profile.timeDeltas[index] ?? 0;
  const node = byId.get(id);
  if (time < loadStart || !node || node.callFrame.functionName === '(idle)') return;
  const { functionName, url, lineNumber } = node.callFrame;
  const delta = profile.timeDeltas[index + 1] ?? 0;
  const key = `${functionName || '(anonymous)'} ${url.replace(/^.*\/(packages|node_modules)\//, '$1/')}:${lineNumber + 1}`;
  selfMicros.set(key, (selfMicros.get(key) ?? 0) + delta);
  const part = partOf(url, functionName);
  partMicros.set(part, (partMicros.get(part) ?? 0) + delta);
  total += delta;
});

const share = (micros: number) => `${((micros / total) * 100).toFixed(1)} %`;
const top = (entries: Map<string, number>, count: number) =>
  [...entries].sort((a, b) => b[1] - a[1]).slice(0, count);
process.stdout.write(`\nprofile: ${join(profileDir, file)}\n\nself time by part of the stack:\n`);
for (const [part, micros] of top(partMicros, 20))
  process.stdout.write(`  ${share(micros).padStart(7)}  ${part}\n`);
process.stdout.write('\nhottest functions (self time):\n');
for (const [key, micros] of top(selfMicros, 40))
  process.stdout.write(`  ${share(micros).padStart(7)}  ${key}\n`);
