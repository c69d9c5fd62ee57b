import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export interface BenchServer {
  port: number;
  pid: number;
  /**
   * CPU time the server process has used so far (user + system, every thread: PGlite's work in a worker
   * thread counts too), in microseconds; undefined where /proc is not available.
   */
  cpuMicros(): number | undefined;
  stop(): Promise<void>;
}

export interface BenchServerOptions {
  /** Extra node flags (for example --cpu-prof). */
  nodeArgs?: readonly string[];
}

const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

let clockTicks: number | undefined;
/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** utime + stime of a process from /proc/<pid>/stat, in microseconds. */
function processCpuMicros(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1_000_000) / ticksPerSecond();
}

/**
 * Starts `bench/servers/<name>.ts` in its own process (node with tsx's loader, so the child's pid is the
 * server itself and its CPU time can be read) and waits for its port announcement.
 */
export function startBenchServer(
  name: 'service' | 'baseline',
  env: NodeJS.ProcessEnv,
  options: BenchServerOptions = {},
): Promise<BenchServer> {
  const script = fileURLToPath(new URL(`./${name}.ts`, import.meta.url));
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), '--import', 'tsx', script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5000).unref();
    }).finally(() => children.delete(child));
  const cpuMicros = () => (child.pid === undefined ? undefined : processCpuMicros(child.pid));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) =>
      reject(new Error(`bench ${name} server exited (${code}) before listening:\n${stderr}`)),
    );
    createInterface({ input: child.stdout }).on('line', (line) => {
      // Only the announcement is JSON starting with "listening"; anything else is ordinary output.
      if (!line.startsWith('{"listening":')) return;
      const port = (JSON.parse(line) as { listening: number }).listening;
      resolve({ port, pid: child.pid ?? 0, cpuMicros, stop });
    });
  });
}
