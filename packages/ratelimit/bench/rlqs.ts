// The RLQS benchmark section: `npm run bench:rlqs -w packages/ratelimit` runs it alone; `npm run
// bench` runs it too and appends it to bench/RESULTS.md. 1,000 streams × 10 buckets reporting
// every second on the memory store and on Redis, on each gRPC transport (GRPC_TRANSPORT=grpc-js and
// h2), each next to ShouldRateLimit paced at the same
// number of decisions (10,000 calls a second of one descriptor each) on the same server.
// BENCH_CPU_PROF=<dir> writes CPU profiles of the servers there.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LOAD_CORE, pinProcess, SERVER_CORE, startRedis } from '@platform/testkit';
import { encodeRateLimitRequest, grpcFrame } from './lib/grpc-frame.js';
import { runH2load } from './lib/h2load.js';
import { measureProcess } from './lib/process-stats.js';
import { ports, rateLimitServer } from './lib/rate-limit-server.js';
import { machineLine } from './lib/report.js';
import { buildServers, type ServerProcess } from './lib/servers.js';
import { BUCKETS_PER_STREAM, measureRlqs, RLQS_CONFIG, type RlqsResult, STREAMS } from './scenarios/rlqs.js';

const RLS_PATH = '/envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit';
const DECISIONS_PER_SECOND = STREAMS * BUCKETS_PER_STREAM;
const PACED_CLIENTS = 32;
const TRANSPORTS = ['grpc-js', 'h2'] as const;
const RLS_SECONDS = 10;
/** Where Redis runs: as for the ShouldRateLimit Redis rows of `npm run bench` (bench/run.ts), which this section is part of. */
export const REDIS_CORE = LOAD_CORE;
const REDIS_PLACEMENT = `the server on core ${SERVER_CORE}; Redis on core ${REDIS_CORE}, where the ShouldRateLimit Redis rows of \`npm run bench\` put it, with h2load; the RLQS load (the bench process) not pinned.`;

interface RlsResult {
  readonly callsPerSecond: number;
  readonly cpuPercent: number;
  readonly p99Ms: number;
  readonly command: string;
}

async function shouldRateLimitPaced(
  server: ServerProcess,
  grpcPort: number,
  frame: string,
): Promise<RlsResult> {
  const [result, usage] = await measureProcess(server.pid, () =>
    runH2load({
      url: `http://127.0.0.1:${grpcPort}${RLS_PATH}`,
      bodyFile: frame,
      headers: ['content-type: application/grpc', 'te: trailers'],
      clients: PACED_CLIENTS,
      streamsPerClient: 1,
      seconds: RLS_SECONDS,
      warmUpSeconds: 1,
      ratePerClient: Math.round(DECISIONS_PER_SECOND / PACED_CLIENTS),
    }),
  );
  return {
    callsPerSecond: result.requestsPerSecond,
    cpuPercent: usage.cpuPercent,
    p99Ms: result.p99Ms,
    command: result.command,
  };
}

/** Runs the section (servers built, Redis running) and returns its Markdown. */
export async function rlqsSection(redisAddress: string): Promise<string> {
  const machine = machineLine();
  const work = await mkdtemp(join(tmpdir(), 'rl-bench-rlqs-'));
  try {
    await mkdir(join(work, 'ratelimit', 'config'), { recursive: true });
    await writeFile(
      join(work, 'ratelimit', 'config', 'quota.yaml'),
      `${RLQS_CONFIG}  - key: one\n    rate_limit: {unit: second, requests_per_unit: 1000000000}\n`,
    );
    const frame = join(work, 'one.grpc');
    await writeFile(
      frame,
      grpcFrame(encodeRateLimitRequest('quota', [{ entries: [{ key: 'one', value: 'x' }] }])),
    );
    const rows: string[] = [];
    let rlsCommand = '';
    for (const [store, backend] of [
      ['memory', { BACKEND_TYPE: 'memory' }],
      ['Redis', { BACKEND_TYPE: 'redis', REDIS_URL: redisAddress }],
    ] as const) {
      // Each store on both gRPC transports, in turns: the streams are carried by the transport.
      for (const transport of TRANSPORTS) {
        const label = `${store}, ${transport}`;
        process.stderr.write(`bench: RLQS, ${label}\n`);
        const p = await ports();
        const server = await rateLimitServer(
          `rlqs-${store}-${transport}`,
          work,
          p,
          { ...backend, RLQS_ENABLED: 'true', GRPC_TRANSPORT: transport },
          process.env.BENCH_CPU_PROF,
        );
        try {
          const rlqs = await measureRlqs(server, p.grpc);
          const rls = await shouldRateLimitPaced(server, p.grpc, frame);
          rlsCommand = rls.command;
          rows.push(rlqsRow(label, rlqs, rls), rlsRow(label, rls));
        } finally {
          await server.stop();
        }
      }
    }
    return [
      '## RLQS: 1,000 streams × 10 buckets reporting every second',
      '',
      `Command: \`npm run bench:rlqs -w packages/ratelimit\` (also part of \`npm run bench\`). ${machine}.`,
      '',
      `${STREAMS} grpc-js streams on 50 channels, each reporting ${BUCKETS_PER_STREAM} buckets once a second (staggered over the`,
      'second), every bucket shared by 10 streams, one report in 50 surging one bucket (20 a second, from a few requests a second',
      'to 500, back on the next report); the server on core 0 with its defaults (RLQS_REBALANCE_INTERVAL=1s, RLQS_ASSIGNMENT_TTL=60s),',
      'on each gRPC transport in turn (GRPC_TRANSPORT=grpc-js, the default, and h2).',
      `Placement: ${REDIS_PLACEMENT}`,
      `Next to each, ShouldRateLimit paced at the same ${DECISIONS_PER_SECOND.toLocaleString('en-US')} decisions a second (h2load, ${PACED_CLIENTS} clients, one`,
      'descriptor per call) on the same server. Targets: RLQS at most 5 % of one core (50 µs of server CPU per report of',
      '10 buckets), p99 ≤ 50 ms. A settled report gets no answer (its assignment is renewed a third of its TTL after it was',
      'sent), so latency is taken where an answer is due: p99 from a surge report to the assignment of the surging bucket it',
      "brings (the target), and from a stream's first report to its first assignments (all 1,000 join within the first second).",
      "Server CPU is the process's utime + stime over the measured window,",
      "every thread included; on a shared machine it moves with the neighbours' load (the load average above).",
      '',
      '| scenario | reports/s (bucket reports/s) | server CPU % of one core | ratio to ShouldRateLimit | server CPU µs per report | RSS KB per stream | change → assignment p50 / p99 ms (changes) | first report → assignment p99 ms | target met |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---|',
      ...rows,
      '',
      '- RLQS load: `bench/scenarios/rlqs.ts` (grpc-js clients in the bench process, not pinned)',
      `- ShouldRateLimit: \`${rlsCommand}\``,
    ].join('\n');
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

function rlqsRow(store: string, r: RlqsResult, rls: RlsResult): string {
  const met = r.cpuPercent <= 5 && r.changeP99Ms <= 50 && r.unanswered === 0;
  const ratio = r.cpuPercent / rls.cpuPercent;
  const unanswered = r.unanswered > 0 ? `, ${r.unanswered} unanswered` : '';
  return `| RLQS, ${store} | ${r.reportsPerSecond.toFixed(0)} (${r.bucketReportsPerSecond.toFixed(0)}) | ${r.cpuPercent.toFixed(1)} | ${ratio.toFixed(2)} of the CPU | ${r.cpuMicrosPerReport.toFixed(0)} | ${r.rssKbPerStream.toFixed(1)} | ${r.changeP50Ms.toFixed(2)} / ${r.changeP99Ms.toFixed(2)} (${r.changes}${unanswered}) | ${r.subscribeP99Ms.toFixed(2)} | ${met ? 'yes' : `**no**${r.cpuPercent > 5 ? ' (CPU)' : ''}${r.changeP99Ms > 50 || r.unanswered > 0 ? ' (p99)' : ''}`} |`;
}

function rlsRow(store: string, r: RlsResult): string {
  // Paced below its rate (a starved h2load), its CPU stands for fewer decisions than the RLQS row's.
  return `| ShouldRateLimit, ${store}, same decisions | ${r.callsPerSecond.toFixed(0)} calls of ${DECISIONS_PER_SECOND} paced | ${r.cpuPercent.toFixed(1)} | baseline | — | — | — | ${r.p99Ms.toFixed(2)} | — |`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stderr.write('bench: building the servers (tsc -p bench/tsconfig.servers.json)\n');
  await buildServers();
  const redis = await startRedis();
  pinProcess(redis.process.pid as number, REDIS_CORE);
  try {
    process.stdout.write(`${await rlqsSection(redis.address)}\n`);
  } finally {
    await redis.stop();
  }
}
