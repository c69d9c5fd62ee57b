import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOAD_CORE, onCore, shownOnCore } from '@platform/testkit';
import { type LoadResult, quantile, shellQuote } from './load-result.js';
import { runCommand, toolPath } from './run-command.js';

export interface H2loadRun {
  readonly url: string;
  /** A file holding the pre-encoded body of every request (POST). */
  readonly bodyFile: string;
  /** Request headers, `name: value`. */
  readonly headers: readonly string[];
  /** HTTP/1.1 instead of HTTP/2 (one request at a time per client). */
  readonly http1?: boolean;
  readonly clients: number;
  readonly streamsPerClient: number;
  readonly seconds: number;
  readonly warmUpSeconds: number;
  /** Requests per second per client; unset = as fast as possible. */
  readonly ratePerClient?: number;
}

/**
 * Drives POSTs of a fixed body with h2load (Debian nghttp2-client), one thread: gRPC unary calls
 * over HTTP/2, or paced HTTP/1.1 requests. Latency percentiles come from h2load's per-request log.
 */
export async function runH2load(run: H2loadRun): Promise<LoadResult> {
  const binary = toolPath('h2load', 'nghttp2-client');
  const logFile = join(tmpdir(), `rl-bench-h2load-${process.pid}-${Date.now()}.tsv`);
  const args = [
    '-t1',
    `-c${run.clients}`,
    `-m${run.streamsPerClient}`,
    // Milliseconds: h2load reads a bare number as whole seconds only.
    `-D${Math.round(run.seconds * 1000)}ms`,
    ...(run.warmUpSeconds > 0 ? [`--warm-up-time=${Math.round(run.warmUpSeconds * 1000)}ms`] : []),
    ...(run.ratePerClient ? [`--rps=${run.ratePerClient}`] : []),
    ...(run.http1 ? ['--h1'] : []),
    '-d',
    run.bodyFile,
    ...run.headers.flatMap((header) => ['-H', header]),
    `--log-file=${logFile}`,
    run.url,
  ];
  try {
    const output = await runCommand(
      ...onCore(LOAD_CORE, binary, args),
      (run.seconds + run.warmUpSeconds + 30) * 1000,
    );
    const latencies = await readLatencies(logFile);
    return {
      requestsPerSecond: latencies.length / run.seconds,
      p50Ms: quantile(latencies, 0.5),
      p99Ms: quantile(latencies, 0.99),
      ...(run.ratePerClient ? { askedPerSecond: run.ratePerClient * run.clients } : {}),
      failed: failedRequests(output),
      command: shownOnCore(LOAD_CORE, [
        'h2load',
        ...args.map((arg) => (arg.endsWith(logFile) ? '--log-file=<tsv>' : arg)),
      ])
        .map(shellQuote)
        .join(' '),
    };
  } finally {
    await rm(logFile, { force: true });
  }
}

/**
 * The log holds one line per request of the measurement period: start time (µs), HTTP status,
 * and µs until the end of the response. Non-200 lines are left out of the latencies.
 */
async function readLatencies(logFile: string): Promise<Float64Array> {
  const text = await readFile(logFile, 'utf8');
  const values: number[] = [];
  for (const line of text.split('\n')) {
    const [, status, elapsed] = line.split('\t');
    if (status === '200' && elapsed !== undefined) values.push(Number(elapsed) / 1000);
  }
  return Float64Array.from(values).sort();
}

/** From `requests: N total, N started, N done, N succeeded, N failed, N errored, N timeout`. */
function failedRequests(output: string): number {
  const match = /requests: .*?(\d+) failed, (\d+) errored, (\d+) timeout/.exec(output);
  if (!match) throw new Error(`unexpected h2load output:\n${output}`);
  return Number(match[1]) + Number(match[2]) + Number(match[3]);
}
