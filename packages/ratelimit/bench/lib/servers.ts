import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { onCore, SERVER_CORE, waitForPort } from '@platform/testkit';
import { runCommand } from './run-command.js';

/** The package directory, so server scripts resolve whatever the caller's cwd is. */
export const PACKAGE_DIR = fileURLToPath(new URL('../..', import.meta.url));

export interface ServerProcess {
  readonly name: string;
  readonly pid: number;
  stop(): Promise<void>;
}

export interface ServerSpec {
  readonly name: string;
  /** An entry point relative to the package directory, without extension: `bin/ratelimit`. */
  readonly script: string;
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  /** Ports to wait for before the server counts as started. */
  readonly ports: readonly number[];
  /** Write a V8 CPU profile into this directory when the server exits (BENCH_CPU_PROF). */
  readonly cpuProfileDir?: string;
}

/**
 * Compiles the service and the baseline servers to dist/ (bench/tsconfig.servers.json), so they
 * run the way production does, `node dist/...`, without a TypeScript loader in the process.
 */
export async function buildServers(): Promise<void> {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  await runCommand(process.execPath, [tsc, '-p', `${PACKAGE_DIR}bench/tsconfig.servers.json`], 120_000);
}

/**
 * Starts a built server in its own process (`node dist/<script>.js`) on the server core, so its
 * RSS and CPU are its own and the load generator runs on the other core.
 */
export async function startServerProcess(spec: ServerSpec): Promise<ServerProcess> {
  const nodeArgs: string[] = [];
  if (spec.cpuProfileDir) nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${spec.cpuProfileDir}`);
  const entry = `dist/${spec.script}.js`;
  const [binary, args] = onCore(SERVER_CORE, process.execPath, [...nodeArgs, entry, ...(spec.args ?? [])]);
  // taskset execs node, so the child's pid is the server's.
  const child = spawn(binary, args, {
    cwd: PACKAGE_DIR,
    env: { ...process.env, ...spec.env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4096);
  });
  const exited = once(child, 'exit');
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const stop = async () => {
    process.off('exit', killOnExit);
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const force = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(force);
  };
  try {
    for (const port of spec.ports) await waitForPort(port, '127.0.0.1', 30_000);
  } catch (error) {
    await stop();
    throw new Error(`${spec.name} did not start: ${(error as Error).message}\n${stderr}`);
  }
  return { name: spec.name, pid: child.pid as number, stop };
}
