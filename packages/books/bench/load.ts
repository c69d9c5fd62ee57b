import autocannon from 'autocannon';

export interface LoadOptions {
  url: string;
  headers?: Record<string, string>;
  connections: number;
  durationSeconds: number;
}

export interface LoadResult {
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  /** Non-2xx answers plus connection errors and timeouts: a benchmark with any is not valid. */
  failures: number;
  requests: number;
}

/** Runs autocannon against one URL; the command line equivalent is printed by `loadCommand`. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.durationSeconds,
    headers: options.headers ?? {},
  });
  return {
    // Over the whole window: autocannon's per-second average leaves out a window's last partial second.
    requestsPerSecond: result.duration > 0 ? result.requests.total / result.duration : 0,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
    requests: result.requests.total,
  };
}

/** The same load as a shell command, for the report. */
export function loadCommand(options: LoadOptions): string {
  const headers = Object.keys(options.headers ?? {})
    .map((name) => ` -H '${name}: …'`)
    .join('');
  return `npx autocannon -c ${options.connections} -d ${options.durationSeconds}${headers} '${options.url}'`;
}
