/**
 * Starting a contender and loading it: one server process per contender, autocannon on 127.0.0.1,
 * and the server's own CPU time read from /proc around each measured window.
 */
import { readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { type ManagedProcess, spawnManaged } from '@platform/testkit';
import autocannon from 'autocannon';

/** The same load for every contender. */
export const LOAD = { connections: 100, pipelining: 10 } as const;

/** Linux reports process CPU time in clock ticks of 1/100 s in /proc/<pid>/stat. */
const CLOCK_TICKS_PER_SECOND = 100;

export interface Route {
  readonly path: string;
  readonly body: unknown;
}

export interface Server {
  readonly name: string;
  readonly base: string;
  readonly process: ManagedProcess;
}

/** One measured window of one contender on one route. */
export interface Sample {
  /** Requests answered per second of the window. */
  readonly requests: number;
  readonly p99: number;
  /** Server CPU time (user + system, all threads) per answered request, in µs; undefined off Linux. */
  readonly cpuMicros: number | undefined;
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

/** Starts one contender in its own process (node with the tsx loader), so /proc/<pid> is the server. */
export async function startServer(name: string, file: string): Promise<Server> {
  const child = spawnManaged(process.execPath, ['--import', 'tsx', file]);
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const port = /listening (\d+)/.exec(child.output())?.[1];
    if (port) return { name, base: `http://127.0.0.1:${port}`, process: child };
    await delay(50);
  }
  await child.stop();
  throw new Error(`${name} (${file}) did not start:\n${child.output()}`);
}

/** Refuses to measure a contender that answers a route wrongly. */
export async function checkRoute(server: Server, route: Route): Promise<void> {
  const response = await fetch(`${server.base}${route.path}`);
  const body = await response.json();
  if (response.status !== 200 || JSON.stringify(body) !== JSON.stringify(route.body)) {
    throw new Error(`${server.name} answered ${route.path} with ${response.status} ${JSON.stringify(body)}`);
  }
}

/** Loads one route of one server for `seconds`; every answer under load must be 2xx. */
export async function loadRoute(server: Server, route: Route, seconds: number): Promise<Sample> {
  const url = `${server.base}${route.path}`;
  const pid = server.process.pid;
  const cpuBefore = cpuSeconds(pid);
  const result = await autocannon({ url, ...LOAD, duration: seconds });
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
  return { requests: answered / result.duration, p99: result.latency.p99, cpuMicros };
}
