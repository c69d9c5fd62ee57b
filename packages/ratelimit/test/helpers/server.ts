import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RateLimitClient } from '../../src/client/client.js';
import { silentLogger } from '../../src/log.js';
import { type RunningServer, type StartOverrides, startServer } from '../../src/main.js';
import { readSettings } from '../../src/settings.js';

/** A clock the test moves by hand, in seconds (fractions allowed); read in milliseconds like the service's. */
export class ManualClock {
  constructor(public seconds: number) {}
  readonly now = (): number => Math.round(this.seconds * 1000);
}

export interface TestServer {
  readonly server: RunningServer;
  readonly client: RateLimitClient;
  readonly clock: ManualClock;
  /** RUNTIME_ROOT/ratelimit/config, where config files go. */
  readonly configDir: string;
  readonly runtimeRoot: string;
  json(body: string, method?: string): Promise<{ status: number; body: string; contentType: string | null }>;
  get(port: 'http' | 'debug', path: string): Promise<{ status: number; body: string }>;
  stop(): Promise<void>;
}

/**
 * Settings for a memory-store server on free loopback ports, reading config under `runtimeRoot/ratelimit`,
 * on the gRPC transport of the test run's GRPC_TRANSPORT (CI runs the gRPC tests under each).
 */
export function loopbackEnv(runtimeRoot: string): Record<string, string> {
  return {
    ...(process.env.GRPC_TRANSPORT ? { GRPC_TRANSPORT: process.env.GRPC_TRANSPORT } : {}),
    BACKEND_TYPE: 'memory',
    HOST: '127.0.0.1',
    PORT: '0',
    GRPC_HOST: '127.0.0.1',
    GRPC_PORT: '0',
    DEBUG_HOST: '127.0.0.1',
    DEBUG_PORT: '0',
    RUNTIME_ROOT: runtimeRoot,
    RUNTIME_SUBDIRECTORY: 'ratelimit',
    USE_STATSD: 'false',
  };
}

/**
 * Starts the whole service in-process with the memory store on free loopback ports, a manual
 * clock at `startAt` (or the system clock with `realClock`), and the given config files in
 * RUNTIME_ROOT/ratelimit/config.
 */
export async function startTestServer(
  files: Record<string, string>,
  env: Record<string, string> = {},
  options: { startAt?: number; realClock?: boolean; overrides?: StartOverrides } = {},
): Promise<TestServer> {
  const runtimeRoot = await mkdtemp(join(tmpdir(), 'ratelimit-test-'));
  const configDir = join(runtimeRoot, 'ratelimit', 'config');
  await mkdir(configDir, { recursive: true });
  for (const [name, text] of Object.entries(files)) await writeFile(join(configDir, name), text);
  const clock = new ManualClock(options.startAt ?? 1_700_000_000);
  const settings = readSettings({ ...loopbackEnv(runtimeRoot), DISABLE_STATS: 'true', ...env });
  const server = await startServer(settings, {
    ...(options.realClock ? {} : { clock: clock.now }),
    log: silentLogger,
    ...options.overrides,
  });
  const client = new RateLimitClient(`127.0.0.1:${server.ports.grpc}`);
  const base = (port: 'http' | 'debug') => `http://127.0.0.1:${server.ports[port]}`;
  return {
    server,
    client,
    clock,
    configDir,
    runtimeRoot,
    async json(body, method = 'POST') {
      const response = await fetch(`${base('http')}/json`, { method, body });
      return {
        status: response.status,
        body: await response.text(),
        contentType: response.headers.get('content-type'),
      };
    },
    async get(port, path) {
      const response = await fetch(`${base(port)}${path}`);
      return { status: response.status, body: await response.text() };
    },
    async stop() {
      client.close();
      await server.close();
      await rm(runtimeRoot, { recursive: true, force: true });
    },
  };
}

/** Builds a request the way Envoy sends it: one descriptor per list of `k=v` pairs. */
export function request(domain: string, ...descriptors: string[][]) {
  return {
    domain,
    descriptors: descriptors.map((pairs) => ({
      entries: pairs.map((pair) => {
        const [key, value] = pair.split('=') as [string, string];
        return { key, value: value ?? '' };
      }),
    })),
    hitsAddend: 1,
  };
}

/** Waits until `condition` holds, polling; for events outside the test's control (file watcher). */
export async function eventually(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 5000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The six per-rule counters of `statKey`, read from the running server's stat store. */
export function ruleCounters(server: RunningServer, statKey: string) {
  const counters = server.stats.snapshot().counters;
  const read = (stat: string) => counters.get(`ratelimit.service.rate_limit.${statKey}.${stat}`) ?? 0;
  return {
    total_hits: read('total_hits'),
    over_limit: read('over_limit'),
    near_limit: read('near_limit'),
    within_limit: read('within_limit'),
    over_limit_with_local_cache: read('over_limit_with_local_cache'),
    shadow_mode: read('shadow_mode'),
  };
}

export function counter(server: RunningServer, name: string): number {
  return server.stats.snapshot().counters.get(name) ?? 0;
}

export function gauge(server: RunningServer, name: string): number {
  return server.stats.snapshot().gauges.get(name) ?? 0;
}
