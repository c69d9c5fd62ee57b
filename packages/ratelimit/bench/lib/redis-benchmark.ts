import { type LoadResult, shellQuote } from './load-result.js';
import { runCommand, toolPath } from './run-command.js';

export interface RedisBenchmarkRun {
  readonly port: number;
  readonly requests: number;
  readonly pipeline: number;
  /** The command with `__rand_int__` placeholders, e.g. ['INCRBY', 'key:__rand_int__', '1']. */
  readonly command: readonly string[];
}

/** One redis-benchmark command, pipelined, over random keys; reads its --csv line. */
export async function runRedisBenchmark(run: RedisBenchmarkRun): Promise<LoadResult> {
  const binary = toolPath('redis-benchmark', 'redis-tools');
  const args = [
    '-h',
    '127.0.0.1',
    '-p',
    String(run.port),
    '-c',
    '50',
    '-n',
    String(run.requests),
    '-P',
    String(run.pipeline),
    '-r',
    '100000',
    '--csv',
    ...run.command,
  ];
  const output = await runCommand(binary, args, 60_000);
  // "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms",...
  const row = output.trim().split('\n').at(-1)?.split('","');
  if (!row || row.length < 7) throw new Error(`unexpected redis-benchmark output:\n${output}`);
  return {
    requestsPerSecond: Number(row[1]),
    p50Ms: Number(row[4]),
    p99Ms: Number(row[6]),
    failed: 0,
    command: ['redis-benchmark', ...args].map(shellQuote).join(' '),
  };
}
