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

const taskset = cpus().length >= 2 ? requireBinary('taskset', 'util-linux') : undefined;
const canPin = typeof taskset === 'string';

/** The command line that runs `binary args` on `core` (unchanged where pinning is not possible). */
export function onCore(core: string, binary: string, args: readonly string[]): [string, string[]] {
  return canPin ? [taskset as string, ['-c', core, binary, ...args]] : [binary, [...args]];
}

/** How the report shows a command that ran on `core`. */
export function shownOnCore(core: string, command: readonly string[]): string[] {
  return canPin ? ['taskset', '-c', core, ...command] : [...command];
}

/** Moves a running process (every thread of it) onto `core`. */
export function pinProcess(pid: number, core: string): void {
  if (canPin) execFileSync(taskset as string, ['-a', '-p', '-c', core, String(pid)], { stdio: 'ignore' });
}
