import { type ClientDuplexStream, credentials } from '@grpc/grpc-js';
import { encodeReport, openQuotaCall, QuotaClient } from '../../test/helpers/rlqs-client.js';
import { measureProcess, rssMb } from '../lib/process-stats.js';
import type { ServerProcess } from '../lib/servers.js';

/**
 * RLQS load: STREAMS simulated Envoys, each on its own stream, each reporting BUCKETS_PER_STREAM
 * buckets once a second (staggered evenly over the second), the way Envoy's reporting_interval
 * does. Every bucket is shared by SHARERS streams, so each report is shared out among several
 * clients. The server runs with its default RLQS_REBALANCE_INTERVAL of 1 s.
 */
export const STREAMS = 1000;
export const BUCKETS_PER_STREAM = 10;
const SHARERS = 10;
const CHANNELS = 50;
const WARM_UP_MS = 3000;
const MEASURE_MS = 10_000;

/** The config the RLQS server runs with: one rule for every `route` bucket. */
export const RLQS_CONFIG = `domain: quota
descriptors:
  - key: route
    rate_limit: {unit: second, requests_per_unit: 1000}
`;

export interface RlqsResult {
  readonly streams: number;
  readonly reportsPerSecond: number;
  readonly bucketReportsPerSecond: number;
  /** Server CPU in percent of one core over the measured window. */
  readonly cpuPercent: number;
  /** Server CPU per report (one message of BUCKETS_PER_STREAM buckets), in µs. */
  readonly cpuMicrosPerReport: number;
  /** (RSS with every stream open and subscribed − RSS before) / streams, in KB. */
  readonly rssKbPerStream: number;
  /** From a report's write to its answer's arrival, ms. */
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly unanswered: number;
}

/** Bucket actions in a response: its top-level fields (each a BucketAction, field 1). */
function actionCount(bytes: Buffer): number {
  let count = 0;
  let at = 0;
  const varint = () => {
    let value = 0;
    let scale = 1;
    for (;;) {
      const byte = bytes[at++] as number;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 128;
    }
  };
  while (at < bytes.length) {
    varint();
    // Not `at += varint()`: that reads `at` before varint() moves it past the length.
    const length = varint();
    at += length;
    count++;
  }
  return count;
}

/** Runs the load against a server with RLQS_ENABLED on `grpcPort` and measures it. */
export async function measureRlqs(server: ServerProcess, grpcPort: number): Promise<RlqsResult> {
  const idleRss = rssMb(server.pid);
  const channels = Array.from(
    { length: CHANNELS },
    () => new QuotaClient(`127.0.0.1:${grpcPort}`, credentials.createInsecure()),
  );
  const latencies: number[] = [];
  let measuring = false;
  let reports = 0;
  let unanswered = 0;
  const streams: Array<{ call: ClientDuplexStream<Buffer, Buffer>; sent: number[]; bytes: Buffer }> = [];
  for (let s = 0; s < STREAMS; s++) {
    const group = s % (STREAMS / SHARERS);
    // The repeated form of bucket_quota_usages, which Envoy's releases send (README, "The two wire forms").
    const bytes = encodeReport(
      'quota',
      Array.from({ length: BUCKETS_PER_STREAM }, (_, j) => ({
        bucket: { route: `r${group * BUCKETS_PER_STREAM + j}` },
        elapsed: 1,
        allowed: 5 + (s % 7),
      })),
    );
    const call = openQuotaCall(channels[s % CHANNELS] as InstanceType<typeof QuotaClient>);
    const stream = { call, sent: [] as number[], bytes };
    call.on('data', (response: Buffer) => {
      // An answer names every bucket of its report; a push names only the buckets that changed.
      if (actionCount(response) < BUCKETS_PER_STREAM) return;
      const sentAt = stream.sent.shift();
      if (sentAt !== undefined && measuring) latencies.push(performance.now() - sentAt);
    });
    call.on('error', () => undefined);
    streams.push(stream);
  }
  const timers: NodeJS.Timeout[] = [];
  const send = (stream: (typeof streams)[number]) => {
    if (stream.sent.length > 5) unanswered++;
    stream.sent.push(performance.now());
    stream.call.write(stream.bytes);
    if (measuring) reports++;
  };
  streams.forEach((stream, s) => {
    timers.push(
      setTimeout(
        () => {
          send(stream);
          timers.push(setInterval(() => send(stream), 1000));
        },
        (s * 1000) / STREAMS,
      ),
    );
  });
  try {
    await new Promise((resolve) => setTimeout(resolve, WARM_UP_MS));
    measuring = true;
    const started = performance.now();
    const [, usage] = await measureProcess(
      server.pid,
      () => new Promise((resolve) => setTimeout(resolve, MEASURE_MS)),
    );
    measuring = false;
    const seconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    const at = (q: number) =>
      latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN;
    const reportsPerSecond = reports / seconds;
    return {
      streams: STREAMS,
      reportsPerSecond,
      bucketReportsPerSecond: reportsPerSecond * BUCKETS_PER_STREAM,
      cpuPercent: usage.cpuPercent,
      cpuMicrosPerReport: (usage.cpuPercent * 10_000) / reportsPerSecond,
      rssKbPerStream: ((usage.maxRssMb - idleRss) * 1024) / STREAMS,
      p50Ms: at(0.5),
      p99Ms: at(0.99),
      unanswered,
    };
  } finally {
    for (const timer of timers) clearInterval(timer);
    for (const stream of streams) stream.call.cancel();
    for (const channel of channels) channel.close();
  }
}
