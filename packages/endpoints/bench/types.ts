/**
 * The costs of issue 37's features, each in fresh processes:
 * - `endpoints openapi --project` over a generated 200-module app, cold: the command as `npx
 *   endpoints` runs it, start to exit, with tsx's transform cache off (every module compiled, the
 *   TypeScript program built, every handler's types read), wall time of each of a few runs;
 * - `app.openapi({ project })` over the same app: wall and CPU time of that first call alone;
 * - `tsc --noEmit` of a consumer of `endpoints client`'s module for that app, against the same
 *   consumer written for hono's RPC client (`hc<AppType>`) over an equivalent hono app, which tsc
 *   must infer from the server's code; tsc's own "Total time" (`--extendedDiagnostics`), wall and
 *   CPU time, each consumer 3 times by turns;
 * - the CPU per request of `responseValidation: 'strict'` against off on the four bench routes,
 *   through `app.fetch` with no sockets, windows of the two apps alternating, median window.
 * Each figure comes with the command that made it, as run from this package's directory.
 * Usage: tsx bench/types.ts; prints one JSON line (bench/run.ts adds it to RESULTS.md).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createApp } from '../src/index.js';
import { generateControllers } from './generate.js';
import { ROUTES, requestOf } from './measure.js';

const benchDir = fileURLToPath(new URL('.', import.meta.url));
const packageRoot = join(benchDir, '..');
const bins = join(packageRoot, '..', '..', 'node_modules', '.bin');
const MODULES = 200;
const run = promisify(execFile);

/**
 * A Node server application's tsconfig: ES2022's library and Node's types, no DOM (TypeScript's
 * default libraries for ES2022 include lib.dom.d.ts, 1.9 MB that a server never uses).
 */
const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    lib: ['ES2022'],
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    skipLibCheck: true,
    types: ['node'],
    noEmit: true,
  },
};

const CLI_RUNS = 3;
const TSC_RUNS = 3;

/** A command as a reader types it from this package's directory (the bench runs it with absolute paths). */
const shown = (words: readonly string[]) =>
  words.map((word) => (word.startsWith(packageRoot) ? word.slice(packageRoot.length + 1) : word)).join(' ');
/** Linux counts children's CPU time in ticks of 10 ms (USER_HZ is 100 on every Linux ABI Node runs on). */
const TICK_MS = 10;

/**
 * CPU time (user + system) of this process's waited-for children so far, from /proc/self/stat
 * (cutime, cstime): the CPU of a command run to its exit, which load on a shared machine inflates far
 * less than its wall time.
 */
function childrenCpuMs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the name come state (field 3), …; cutime and cstime are fields 16 and 17.
  return (Number(fields[13]) + Number(fields[14])) * TICK_MS;
}

/** The command, cold, start to exit; the wall and CPU time of each run (its output is checked, then dropped). */
async function coldCli(dir: string) {
  const out = join(packageRoot, '.tmp', 'bench-types-openapi.json');
  const args = [
    join(packageRoot, 'bin', 'endpoints.mjs'),
    'openapi',
    '--prefix',
    dir,
    '--project',
    join(dir, 'tsconfig.json'),
    '--out',
    out,
  ];
  const runs: { wallMs: number; cpuMs: number }[] = [];
  for (let index = 0; index < CLI_RUNS; index += 1) {
    const cpu = childrenCpuMs();
    const started = performance.now();
    await run(process.execPath, args, { cwd: packageRoot, env: { ...process.env, TSX_DISABLE_CACHE: '1' } });
    runs.push({ wallMs: performance.now() - started, cpuMs: childrenCpuMs() - cpu });
    const paths = Object.keys((JSON.parse(readFileSync(out, 'utf8')) as { paths: object }).paths).length;
    if (paths !== MODULES * 2) throw new Error(`the document has ${paths} paths, expected ${MODULES * 2}`);
  }
  return { command: `TSX_DISABLE_CACHE=1 ${shown(['node', ...args])}`, runs };
}

/** The cold document: a fresh process building the program and reading 400 handlers. */
async function coldOpenapi(dir: string) {
  const script = `
    import { createApp } from ${JSON.stringify(join(packageRoot, 'src', 'index.ts'))};
    const app = await createApp({ controllerPrefix: ${JSON.stringify(dir)}, log: () => {} });
    const cpu = process.cpuUsage();
    const started = performance.now();
    const document = app.openapi({ project: ${JSON.stringify(join(dir, 'tsconfig.json'))} });
    const used = process.cpuUsage(cpu);
    console.log(JSON.stringify({ wallMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000,
      typed: Object.values(document.paths).filter((item) => JSON.stringify(item).includes('"module"')).length }));`;
  const { stdout } = await run(join(bins, 'tsx'), ['--input-type=module', '-e', script], {
    cwd: packageRoot,
  });
  return JSON.parse(stdout) as { wallMs: number; cpuMs: number; typed: number };
}

/** tsc's own account of a `--noEmit` run ("Total time"), and the wall and CPU time of its process. */
async function typecheck(dir: string) {
  const args = ['--noEmit', '--extendedDiagnostics', '-p', dir];
  const cpu = childrenCpuMs();
  const started = performance.now();
  const { stdout } = await run(join(bins, 'tsc'), args, { cwd: dir });
  const wallMs = performance.now() - started;
  const cpuMs = childrenCpuMs() - cpu;
  const total = /Total time:\s+([\d.]+)s/.exec(stdout)?.[1];
  const types = /Types:\s+(\d+)/.exec(stdout)?.[1];
  return {
    command: shown(['npx', 'tsc', ...args]),
    wallMs,
    cpuMs,
    totalMs: Number(total) * 1000,
    types: Number(types),
  };
}

/** Each consumer's tsc, by turns, so a busy spell of the shared machine falls on both. */
async function typecheckBoth(ours: string, hono: string) {
  const runs = {
    ours: [] as Awaited<ReturnType<typeof typecheck>>[],
    hono: [] as Awaited<ReturnType<typeof typecheck>>[],
  };
  for (let index = 0; index < TSC_RUNS; index += 1) {
    runs.ours.push(await typecheck(ours));
    runs.hono.push(await typecheck(hono));
  }
  return runs;
}

/** The operation ids of the emitted module's route table, by `METHOD path`. */
function operationIds(client: string): Map<string, string> {
  const ids = new Map<string, string>();
  for (const [, id, method, path] of readFileSync(client, 'utf8').matchAll(
    /^ {2}"(\w+)": \{ method: "(\w+)", path: "([^"]+)" \},$/gm,
  )) {
    ids.set(`${method} ${path}`, id as string);
  }
  return ids;
}

/** Our consumer: the emitted module, then a call on each of its operations, as a user writes them. */
async function oursConsumer(dir: string): Promise<{ dir: string; emitted: string }> {
  const out = join(packageRoot, '.tmp', 'bench-client-ours');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const args = [
    join(packageRoot, 'bin', 'endpoints.mjs'),
    'client',
    '--prefix',
    dir,
    '--project',
    join(dir, 'tsconfig.json'),
    '--out',
    join(out, 'client.ts'),
  ];
  await run(process.execPath, args, { cwd: packageRoot });
  const ids = operationIds(join(out, 'client.ts'));
  const idOf = (route: string) => {
    const id = ids.get(route);
    if (!id) throw new Error(`the emitted client has no operation ${route}`);
    return id;
  };
  const calls = Array.from({ length: MODULES }, (_, i) => {
    const base = `/area${Math.floor(i / 10)}/module-${i}`;
    return `  await http.${idOf(`GET ${base}/{id}`)}({ params: { path: { id: '1' }, query: { verbose: true } } });
  await http.${idOf(`POST ${base}/item${i}`)}({ body: { name: 'n' } });`;
  });
  writeFileSync(
    join(out, 'consumer.ts'),
    `import { createHttpClient } from './client.js';\nconst http = createHttpClient({ baseUrl: 'http://127.0.0.1' });\nexport async function all() {\n${calls.join('\n')}\n}\n`,
  );
  writeFileSync(join(out, 'package.json'), JSON.stringify({ type: 'module' }));
  writeFileSync(join(out, 'tsconfig.json'), JSON.stringify({ ...TSCONFIG, files: ['consumer.ts'] }));
  return { dir: out, emitted: shown(['node', ...args]) };
}

/**
 * The same 200 modules as hono sub-apps (GET /:id with a `verbose` query, POST /item<i> with a JSON
 * body), mounted with `.route()` into one AppType, and a consumer calling each through `hc`. No
 * validators (no zod), the lightest typing hono allows: paths and path parameters are inferred from
 * the server, queries and bodies are not typed at all, so hono's side does less checking than ours.
 */
function honoConsumer(): string {
  const out = join(packageRoot, '.tmp', 'bench-client-hono');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const modules = Array.from(
    { length: MODULES },
    (_, i) => `const m${i} = new Hono()
  .get('/:id', (c) => c.json({ module: ${i}, id: c.req.param('id'), verbose: c.req.query('verbose') === 'true' }))
  .post('/item${i}', async (c) => { const { name } = await c.req.json<{ name: string }>(); return c.json({ item: ${i}, name }); });`,
  );
  const mounts = Array.from(
    { length: MODULES },
    (_, i) => `  .route('/area${Math.floor(i / 10)}/module-${i}', m${i})`,
  );
  writeFileSync(
    join(out, 'server.ts'),
    `import { Hono } from 'hono';\n${modules.join('\n')}\nexport const app = new Hono()\n${mounts.join('\n')};\nexport type AppType = typeof app;\n`,
  );
  const calls = Array.from({ length: MODULES }, (_, i) => {
    const path = `client.area${Math.floor(i / 10)}['module-${i}']`;
    return `  await ${path}[':id'].$get({ param: { id: '1' } });
  await ${path}.item${i}.$post({ json: { name: 'n' } });`;
  });
  writeFileSync(
    join(out, 'consumer.ts'),
    `import { hc } from 'hono/client';\nimport type { AppType } from './server.js';\nconst client = hc<AppType>('http://127.0.0.1');\nexport async function all() {\n${calls.join('\n')}\n}\n`,
  );
  writeFileSync(join(out, 'package.json'), JSON.stringify({ type: 'module' }));
  writeFileSync(join(out, 'tsconfig.json'), JSON.stringify({ ...TSCONFIG, files: ['consumer.ts'] }));
  return out;
}

/** CPU µs per request through `app.fetch`, for `off` and `strict` by turns; the median window of each. */
async function validationCost() {
  const options = {
    controllerPrefix: join(benchDir, 'controllers'),
    log: () => {},
    project: join(packageRoot, 'tsconfig.json'),
  };
  const apps = {
    off: await createApp(options),
    strict: await createApp({ ...options, responseValidation: 'strict' }),
  };
  const PER_WINDOW = 5000;
  const WINDOWS = 7;
  const result: Record<string, { off: number; strict: number }> = {};
  for (const route of ROUTES) {
    const request = requestOf(route);
    const once = async (app: (typeof apps)['off']) => {
      const response = await app.fetch(
        new Request(`http://127.0.0.1${route.path}`, {
          method: request.method,
          ...(request.headers ? { headers: request.headers } : {}),
          ...(request.body ? { body: request.body } : {}),
        }),
      );
      if (response.status !== 200) throw new Error(`${route.path} answered ${response.status}`);
      await response.arrayBuffer();
    };
    const windows: Record<'off' | 'strict', number[]> = { off: [], strict: [] };
    for (let window = 0; window < WINDOWS + 2; window += 1) {
      for (const mode of window % 2 === 0 ? (['off', 'strict'] as const) : (['strict', 'off'] as const)) {
        const cpu = process.cpuUsage();
        for (let i = 0; i < PER_WINDOW; i += 1) await once(apps[mode]);
        const used = process.cpuUsage(cpu);
        // The first two windows of each warm the JIT.
        if (window >= 2) windows[mode].push((used.user + used.system) / PER_WINDOW);
      }
    }
    const median = (values: number[]) =>
      [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
    result[`${request.method} ${route.path}`] = { off: median(windows.off), strict: median(windows.strict) };
  }
  return result;
}

const dir = join(packageRoot, '.tmp', 'bench-types-app');
// As an application imports the framework: the package, whose types are the built declarations.
generateControllers(dir, MODULES, 'ts', '@platform/endpoints');
writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ ...TSCONFIG, include: ['.'] }));
const cli = await coldCli(dir);
const openapi = await coldOpenapi(dir);
const consumer = await oursConsumer(dir);
const { ours, hono } = await typecheckBoth(consumer.dir, honoConsumer());
const perRequest = await validationCost();
const figures = {
  modules: MODULES,
  tsconfig: TSCONFIG.compilerOptions,
  cli,
  openapi,
  emitted: consumer.emitted,
  ours,
  hono,
  perRequest,
  perRequestCommand:
    "createApp({ controllerPrefix: 'bench/controllers', project: 'tsconfig.json' }) and the same with responseValidation: 'strict', app.fetch(new Request(…)) in turns (bench/types.ts)",
};
process.stdout.write(`${JSON.stringify(figures)}\n`);
