// The rate limit server (bin/ratelimit) as the bench sections start it: its ports, its environment.
import { freePort } from '@platform/testkit';
import { type ServerProcess, startServerProcess } from './servers.js';

export interface Ports {
  readonly http: number;
  readonly grpc: number;
  readonly debug: number;
}

export async function ports(): Promise<Ports> {
  return { http: await freePort(), grpc: await freePort(), debug: await freePort() };
}

/** The rate limit server (bin/ratelimit); `backend` may also pick the gRPC transport (GRPC_TRANSPORT). */
export function rateLimitServer(
  name: string,
  runtimeRoot: string,
  p: Ports,
  backend: Record<string, string>,
  cpuProfileDir: string | undefined,
): Promise<ServerProcess> {
  return startServerProcess({
    name,
    script: 'bin/ratelimit',
    ports: [p.http, p.grpc, p.debug],
    cpuProfileDir,
    env: rateLimitEnv(runtimeRoot, p, backend),
  });
}

/** The environment of a rate limit server on ports `p` with the config under `runtimeRoot`. */
function rateLimitEnv(
  runtimeRoot: string,
  p: Ports,
  backend: Record<string, string>,
): Record<string, string> {
  return {
    ...backend,
    HOST: '127.0.0.1',
    PORT: String(p.http),
    GRPC_HOST: '127.0.0.1',
    GRPC_PORT: String(p.grpc),
    DEBUG_HOST: '127.0.0.1',
    DEBUG_PORT: String(p.debug),
    RUNTIME_ROOT: runtimeRoot,
    RUNTIME_SUBDIRECTORY: 'ratelimit',
    RUNTIME_WATCH_ROOT: 'false',
    USE_STATSD: 'false',
    LOG_LEVEL: 'warn',
  };
}
