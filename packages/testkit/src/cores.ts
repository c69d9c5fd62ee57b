import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';
import { requireBinary } from './binaries.js';

/**
 * Where each process of a benchmark runs on the 2-core machine: the server under test on one core;
 * the load generator, and any backend standing in for another machine, on the other. Without
 * pinning, the kernel may wake a backend on the core of the server that just wrote to it, and the
 * load generator may drift onto the server's core, so the server's core would pay for work that is
 * not its own.
 */
export const SERVER_CORE = '0';
export const LOAD_CORE = '1';

/**
 * taskset's path, looked up on first use, since the tests share this package and never pin; '' where
 * pinning is not possible.
 */
let taskset: string | undefined;

function tasksetPath(): string {
  if (taskset === undefined) {
    const found = cpus().length >= 2 ? requireBinary('taskset', 'util-linux') : '';
    taskset = typeof found === 'string' ? found : '';
  }
  return taskset;
}

/** The command line that runs `binary args` on `core` (unchanged where pinning is not possible). */
export function onCore(core: string, binary: string, args: readonly string[]): [string, string[]] {
  const path = tasksetPath();
  return path ? [path, ['-c', core, binary, ...args]] : [binary, [...args]];
}

/** How the report shows a command that ran on `core`. */
export function shownOnCore(core: string, command: readonly string[]): string[] {
  return tasksetPath() ? ['taskset', '-c', core, ...command] : [...command];
}

/** Moves a running process (every thread of it) onto `core`. */
export function pinProcess(pid: number, core: string): void {
  const path = tasksetPath();
  if (path) execFileSync(path, ['-a', '-p', '-c', core, String(pid)], { stdio: 'ignore' });
}
