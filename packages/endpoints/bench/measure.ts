/**
 * Starting a contender and loading it: one server process per contender, autocannon on 127.0.0.1,
 * and the server's own CPU time read from /proc around each measured window.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { type ManagedProcess, onCore, SERVER_CORE, spawnManaged } from '@platform/testkit';
import autocannon from 'autocannon';
import type { ContenderFile } from './contenders/load.js';

const SERVE = fileURLToPath(new URL('serve.ts', import.meta.url));

/** The same load for every contender. */
export const LOAD = { connections: 100, pipelining: 10 } as const;

export interface Route {
  readonly path: string;
  /** The answer every contender must give (compared as JSON). */
  readonly body: unknown;
  /** A request body, sent as JSON with POST. */
  readonly json?: unknown;
}

export interface Server {
  readonly name: string;
  readonly base: string;
  readonly process: ManagedProcess;
}

/** One measured window of one contender on one route. */
export interface Sample {
  /** Requests answered in the window; none when the machine starved the load generator or the server. */
  readonly answered: number;
  /** Requests answered per second of the window. */
  readonly requests: number;
  readonly p99: number;
  /** Server CPU time (user + system, all threads) per answered request, in µs; undefined off Linux. */
  readonly cpuMicros: number | undefined;
}

/**
 * CPU seconds the process has used, all its threads, from /proc; undefined off Linux. Each thread's
 * `schedstat` counts its time on a CPU in nanoseconds, where `stat` counts ticks of 10 ms: a 1 s
 * window at half a core is only some 50 ticks, a 2 % step.
 */
function cpuSeconds(pid: number): number | undefined {
  try {
    let nanos = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      nanos += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    }
    return nanos / 1e9;
  } catch {
    return undefined;
  }
}

/**
 * Starts one contender on a socket in its own process (`bench/serve.ts`, node with the tsx loader)
 * on the server core, so /proc/<pid> is the server; `nodeArgs` go to that node (`--cpu-prof`, say).
 */
export async function startServer(
  name: string,
  file: ContenderFile,
  nodeArgs: readonly string[] = [],
): Promise<Server> {
  const child = spawnManaged(
    ...onCore(SERVER_CORE, process.execPath, [...nodeArgs, '--import', 'tsx', SERVE, file]),
  );
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const port = /listening (\d+)/.exec(child.output())?.[1];
    if (port) return { name, base: `http://127.0.0.1:${port}`, process: child };
    await delay(50);
  }
  await child.stop();
  throw new Error(`${name} (bench/contenders/${file}.ts) did not start:\n${child.output()}`);
}

/** Refuses to measure a contender that answers a route wrongly. */
export async function checkRoute(server: Server, route: Route): Promise<void> {
  const response = await fetch(`${server.base}${route.path}`, requestOf(route));
  const body = await response.json();
  if (response.status !== 200 || JSON.stringify(body) !== JSON.stringify(route.body)) {
    throw new Error(`${server.name} answered ${route.path} with ${response.status} ${JSON.stringify(body)}`);
  }
}

/** The benchmark's routes and the answer each must give; see the README's benchmark section. */
export const ROUTES: readonly Route[] = [
  { path: '/', body: { hello: 'world' } },
  { path: '/users/42/posts/7', body: { userId: '42', postId: '7' } },
  { path: '/search?q=books&page=2&size=10', body: { q: 'books', page: 2, size: 10 } },
  { path: '/users', json: { name: 'Lin', age: 30 }, body: { name: 'Lin', age: 30 } },
];

/** Method, headers and body of a route's request (a GET unless it has a JSON body). */
export function requestOf(route: Route): {
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
} {
  if (route.json === undefined) return { method: 'GET' };
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(route.json),
  };
}

/** Loads one route of one server for `seconds`; every answer under load must be 2xx. */
export async function loadRoute(server: Server, route: Route, seconds: number): Promise<Sample> {
  const url = `${server.base}${route.path}`;
  const pid = server.process.pid;
  const cpuBefore = cpuSeconds(pid);
  const result = await autocannon({ url, ...LOAD, ...requestOf(route), duration: seconds });
  const cpuAfter = cpuSeconds(pid);
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${url}: ${result.non2xx} non-2xx answers and ${result.errors} errors under load`);
  }
  const answered = result.requests.total;
  const cpuMicros =
    cpuBefore === undefined || cpuAfter === undefined || answered === 0
      ? undefined
      : ((cpuAfter - cpuBefore) * 1e6) / answered;
  // autocannon's own average is over whole one-second samples; a short window needs total / time.
  return { answered, requests: answered / result.duration, p99: result.latency.p99, cpuMicros };
}
