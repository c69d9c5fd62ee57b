import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, waitForPort } from '@platform/testkit';

/** The `ratelimit` command running as its own process, for what only a process shows (RSS, fds, signals). */
export interface ChildServer {
  readonly pid: number;
  readonly ports: { readonly http: number; readonly grpc: number; readonly debug: number };
  readonly process: ChildProcess;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
  /** Resident set size in bytes, from /proc. */
  rss(): Promise<number>;
  /** Open file descriptors, from /proc. */
  openFds(): Promise<number>;
  /** Resolves to the exit code once the process has exited. */
  readonly exited: Promise<number | null>;
  stop(): Promise<void>;
}

export interface LoopbackPorts {
  readonly http: number;
  readonly grpc: number;
  readonly debug: number;
}

/** Three free loopback ports for a service process. */
export async function freePorts(): Promise<LoopbackPorts> {
  return { http: await freePort(), grpc: await freePort(), debug: await freePort() };
}

/** The settings that serve `root`'s config on `ports` of 127.0.0.1, with no stats sent anywhere. */
export function loopbackEnv(root: string, ports: LoopbackPorts): Record<string, string> {
  return {
    RUNTIME_ROOT: root,
    HOST: '127.0.0.1',
    PORT: String(ports.http),
    GRPC_HOST: '127.0.0.1',
    GRPC_PORT: String(ports.grpc),
    DEBUG_HOST: '127.0.0.1',
    DEBUG_PORT: String(ports.debug),
    USE_STATSD: 'false',
    DISABLE_STATS: 'true',
  };
}

/**
 * Starts bin/ratelimit.ts with the memory store (unless `env` says otherwise) on free loopback
 * ports, with `files` in RUNTIME_ROOT/config, and waits until all three ports accept connections.
 */
export async function startChildServer(
  files: Record<string, string>,
  env: Record<string, string> = {},
): Promise<ChildServer> {
  const root = await mkdtemp(join(tmpdir(), 'ratelimit-child-'));
  await mkdir(join(root, 'config'), { recursive: true });
  for (const [name, text] of Object.entries(files)) await writeFile(join(root, 'config', name), text);
  const ports = await freePorts();
  const bin = fileURLToPath(new URL('../../bin/ratelimit.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', bin], {
    env: {
      ...process.env,
      BACKEND_TYPE: 'memory',
      RUNTIME_WATCH_ROOT: 'false',
      ...loopbackEnv(root, ports),
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-16_384);
  });
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const pid = child.pid as number;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    await rm(root, { recursive: true, force: true });
  };
  try {
    for (const port of Object.values(ports)) await waitForPort(port, '127.0.0.1', 30_000);
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}; server stderr: ${stderr}`);
  }
  return {
    pid,
    ports,
    process: child,
    stderr: () => stderr,
    async rss() {
      const status = await readFile(`/proc/${pid}/status`, 'utf8');
      const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
      if (kb === undefined) throw new Error(`no VmRSS for ${pid}`);
      return Number(kb) * 1024;
    },
    async openFds() {
      return (await readdir(`/proc/${pid}/fd`)).length;
    },
    exited,
    stop,
  };
}
