import { type ClientDuplexStream, credentials } from '@grpc/grpc-js';
import { decodeResponse, encodeReport, openQuotaCall, QuotaClient } from '../../test/helpers/rlqs-client.js';
import { measureProcess, rssMb } from '../lib/process-stats.js';
import type { ServerProcess } from '../lib/servers.js';

/**
 * RLQS load: STREAMS simulated Envoys, each on its own stream, each reporting BUCKETS_PER_STREAM
 * buckets once a second (staggered evenly over the second), the way Envoy's reporting_interval
 * does. Every bucket is shared by SHARERS streams, so each report is shared out among several
 * clients. The server runs with its default RLQS_REBALANCE_INTERVAL of 1 s. A settled report gets
 * no answer (the server renews an assignment a third of its TTL after sending it, 20 s with the
 * default 60 s), so latency is measured where an answer is due: from a report that changes demand
 * (a surge, below) to the assignment it brings, and from a stream's first report to its first
 * assignments.
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
  /** From a report that changes a bucket's demand to the reporter's assignment of that bucket, ms (measured window). */
  readonly changeP50Ms: number;
  readonly changeP99Ms: number;
  readonly changes: number;
  /** Changes whose assignment had not come 2 s after the window closed. */
  readonly unanswered: number;
  /** From a stream's first report to its first assignments (every stream, during the warm-up), ms. */
  readonly subscribeP99Ms: number;
}

/**
 * A stream surges on one report in SURGE_EVERY (streams in turn, so STREAMS / SURGE_EVERY surges a
 * second): its first bucket's demand goes from a few requests a second to SURGE_DEMAND, above its
 * floor, which moves the shares of every client of that bucket; its next report is back to normal.
 */
const SURGE_EVERY = 50;
const SURGE_DEMAND = 500;

/** Whether a response assigns the bucket `route`, read only for the few responses a change awaits. */
function assigns(response: Buffer, route: string): boolean {
  return decodeResponse(response).some((action) => action.kind === 'assign' && action.bucket.route === route);
}

/** Runs the load against a server with RLQS_ENABLED on `grpcPort` and measures it. */
export async function measureRlqs(server: ServerProcess, grpcPort: number): Promise<RlqsResult> {
  const idleRss = rssMb(server.pid);
  const channels = Array.from(
    { length: CHANNELS },
    () => new QuotaClient(`127.0.0.1:${grpcPort}`, credentials.createInsecure()),
  );
  const changeLatencies: number[] = [];
  const subscribeLatencies: number[] = [];
  let measuring = false;
  let reports = 0;
  let changes = 0;
  interface LoadStream {
    readonly call: ClientDuplexStream<Buffer, Buffer>;
    readonly steady: Buffer;
    readonly surge: Buffer;
    readonly surgeRoute: string;
    readonly offset: number;
    reportsSent: number;
    /** The first report's time, until its answer came. */
    subscribedAt: number | undefined;
    /** The surge report's time, until the assignment it brings. */
    surgedAt: number | undefined;
  }
  const streams: LoadStream[] = [];
  for (let s = 0; s < STREAMS; s++) {
    const group = s % (STREAMS / SHARERS);
    const routes = Array.from({ length: BUCKETS_PER_STREAM }, (_, j) => `r${group * BUCKETS_PER_STREAM + j}`);
    // The repeated form of bucket_quota_usages, which Envoy's releases send (README, "The two wire forms").
    const report = (first: number) =>
      encodeReport(
        'quota',
        routes.map((route, j) => ({ bucket: { route }, elapsed: 1, allowed: j === 0 ? first : 5 + (s % 7) })),
      );
    const call = openQuotaCall(channels[s % CHANNELS] as InstanceType<typeof QuotaClient>);
    const stream: LoadStream = {
      call,
      steady: report(5 + (s % 7)),
      surge: report(SURGE_DEMAND),
      surgeRoute: routes[0] as string,
      offset: s,
      reportsSent: 0,
      subscribedAt: undefined,
      surgedAt: undefined,
    };
    call.on('data', (response: Buffer) => {
      const now = performance.now();
      if (stream.subscribedAt !== undefined) {
        subscribeLatencies.push(now - stream.subscribedAt);
        stream.subscribedAt = undefined;
      }
      if (stream.surgedAt !== undefined && assigns(response, stream.surgeRoute)) {
        changeLatencies.push(now - stream.surgedAt);
        stream.surgedAt = undefined;
      }
    });
    call.on('error', () => undefined);
    streams.push(stream);
  }
  const timers: NodeJS.Timeout[] = [];
  const send = (stream: LoadStream) => {
    const number = stream.reportsSent++;
    const surges =
      measuring &&
      number > 0 &&
      (number + stream.offset) % SURGE_EVERY === 0 &&
      stream.surgedAt === undefined;
    if (number === 0) stream.subscribedAt = performance.now();
    if (surges) {
      stream.surgedAt = performance.now();
      changes++;
    }
    stream.call.write(surges ? stream.surge : stream.steady);
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
    // Surges of the window's last moments are still on their way: they get up to 2 s more.
    const deadline = performance.now() + 2000;
    while (streams.some((stream) => stream.surgedAt !== undefined) && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const reportsPerSecond = reports / seconds;
    return {
      streams: STREAMS,
      reportsPerSecond,
      bucketReportsPerSecond: reportsPerSecond * BUCKETS_PER_STREAM,
      cpuPercent: usage.cpuPercent,
      cpuMicrosPerReport: (usage.cpuPercent * 10_000) / reportsPerSecond,
      rssKbPerStream: ((usage.maxRssMb - idleRss) * 1024) / STREAMS,
      changeP50Ms: quantile(changeLatencies, 0.5),
      changeP99Ms: quantile(changeLatencies, 0.99),
      changes,
      unanswered: streams.filter((stream) => stream.surgedAt !== undefined).length,
      subscribeP99Ms: quantile(subscribeLatencies, 0.99),
    };
  } finally {
    for (const timer of timers) clearInterval(timer);
    for (const stream of streams) stream.call.cancel();
    for (const channel of channels) channel.close();
  }
}

function quantile(values: number[], q: number): number {
  values.sort((a, b) => a - b);
  return values[Math.min(values.length - 1, Math.floor(q * values.length))] ?? Number.NaN;
}
