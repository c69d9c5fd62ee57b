import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitForPort } from '@platform/testkit';
import { packageRoot } from '../../src/paths.js';

/** A real `ratelimit` process (this repository's rate limit service) on the memory store. */
export interface RateLimitProcess {
  /** host:port of its gRPC API, as RATE_LIMIT_SERVICE takes it. */
  readonly grpcAddress: string;
  stop(): Promise<void>;
}

// The workspace next to this one (packages/ratelimit).
const ratelimitRoot = join(packageRoot, '..', 'ratelimit');

/**
 * Starts packages/ratelimit's `bin/ratelimit.ts` as its own process with BACKEND_TYPE=memory, the
 * given config files, and free loopback ports; resolves once its gRPC port accepts connections.
 */
export async function startRateLimitProcess(files: Record<string, string>): Promise<RateLimitProcess> {
  const root = await mkdtemp(join(tmpdir(), 'books-ratelimit-'));
  await mkdir(join(root, 'config'), { recursive: true });
  for (const [name, text] of Object.entries(files)) await writeFile(join(root, 'config', name), text);
  const ports = { http: await freePort(), grpc: await freePort(), debug: await freePort() };
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', join(ratelimitRoot, 'bin', 'ratelimit.ts')],
    {
      cwd: ratelimitRoot,
      env: {
        ...process.env,
        BACKEND_TYPE: 'memory',
        RUNTIME_ROOT: root,
        RUNTIME_WATCH_ROOT: 'false',
        HOST: '127.0.0.1',
        PORT: String(ports.http),
        GRPC_HOST: '127.0.0.1',
        GRPC_PORT: String(ports.grpc),
        DEBUG_HOST: '127.0.0.1',
        DEBUG_PORT: String(ports.debug),
        USE_STATSD: 'false',
        DISABLE_STATS: 'true',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-8192);
  });
  const exited = once(child, 'exit');
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    await rm(root, { recursive: true, force: true });
  };
  try {
    await waitForPort(ports.grpc, '127.0.0.1', 30_000);
  } catch (error) {
    await stop();
    throw new Error(`ratelimit did not start: ${(error as Error).message}; stderr: ${stderr}`);
  }
  return { grpcAddress: `127.0.0.1:${ports.grpc}`, stop };
}
