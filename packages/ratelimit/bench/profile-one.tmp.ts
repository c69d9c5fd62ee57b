import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startRedis } from '@platform/testkit';
import { encodeRateLimitRequest, grpcFrame } from './lib/grpc-frame.js';
import { runH2load } from './lib/h2load.js';
import { buildServers, startServerProcess } from './lib/servers.js';
import { runWrk, writePostScript } from './lib/wrk.js';

const [mode, backend, descs] = process.argv.slice(2) as [string, string, string];
await buildServers();
const work = await mkdtemp(join(tmpdir(), 'rlp-'));
await mkdir(join(work, 'ratelimit', 'config'), { recursive: true });
await writeFile(
  join(work, 'ratelimit', 'config', 'b.yaml'),
  `domain: bench\ndescriptors:\n  - key: client\n    rate_limit: {unit: second, requests_per_unit: 1000000000}\n  - key: path\n    rate_limit: {unit: minute, requests_per_unit: 1000000000}\n  - key: user\n    rate_limit: {unit: hour, requests_per_unit: 1000000000}\n`,
);
const ONE = [{ entries: [{ key: 'client', value: 'frontend' }] }];
const THREE = [
  ...ONE,
  { entries: [{ key: 'path', value: '/api' }] },
  { entries: [{ key: 'user', value: 'u' }] },
];
await writeFile(
  join(work, 'f.grpc'),
  grpcFrame(encodeRateLimitRequest('bench', descs === '3' ? THREE : ONE)),
);
await writePostScript(join(work, 'p.lua'), JSON.stringify({ domain: 'bench', descriptors: ONE }));
const redis = backend === 'redis' ? await startRedis() : undefined;
const p = { http: await freePort(), grpc: await freePort(), debug: await freePort() };
const server = await startServerProcess({
  name: 'x',
  script: 'bin/ratelimit',
  ports: [p.http, p.grpc],
  cpuProfileDir: process.env.PROF,
  env: {
    BACKEND_TYPE: backend,
    ...(redis ? { REDIS_URL: redis.address } : {}),
    HOST: '127.0.0.1',
    PORT: String(p.http),
    GRPC_HOST: '127.0.0.1',
    GRPC_PORT: String(p.grpc),
    DEBUG_HOST: '127.0.0.1',
    DEBUG_PORT: String(p.debug),
    RUNTIME_ROOT: work,
    RUNTIME_SUBDIRECTORY: 'ratelimit',
    RUNTIME_WATCH_ROOT: 'false',
    USE_STATSD: 'false',
    LOG_LEVEL: 'warn',
    ...(process.env.EXTRA ? JSON.parse(process.env.EXTRA) : {}),
  },
});
const r =
  mode === 'grpc'
    ? await runH2load({
        url: `http://127.0.0.1:${p.grpc}/envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit`,
        bodyFile: join(work, 'f.grpc'),
        headers: ['content-type: application/grpc', 'te: trailers'],
        clients: 4,
        streamsPerClient: 16,
        seconds: Number(process.env.S ?? 5),
        warmUpSeconds: 1,
      })
    : await runWrk({
        url: `http://127.0.0.1:${p.http}/json`,
        scriptFile: join(work, 'p.lua'),
        connections: 32,
        seconds: Number(process.env.S ?? 5),
        warmUpSeconds: 1,
      });
console.log(mode, backend, descs, Math.round(r.requestsPerSecond), r.p50Ms, r.p99Ms, r.failed);
await server.stop();
await redis?.stop();
