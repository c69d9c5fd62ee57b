import { cpus, loadavg } from 'node:os';
import type { LoadResult } from './load.js';

export interface Measurement {
  database: string;
  request: string;
  server: string;
  result: LoadResult;
  /** Requests per second relative to the raw baseline of the same database and request. */
  ratio: number;
}

const format = (value: number, digits = 0) => value.toFixed(digits);

export function machineLine(): string {
  const cores = cpus();
  // The load average says how much else was running: on a shared machine it explains noisy numbers.
  const [load] = loadavg();
  return `${cores.length} cores (${cores[0]?.model.trim() ?? 'unknown CPU'}), Node ${process.version}, ${process.platform}, load average ${load?.toFixed(1)} at the end`;
}

/** The Markdown table of all runs, in the order they ran. */
export function resultsTable(measurements: readonly Measurement[]): string {
  const rows = measurements.map(({ database, request, server, result, ratio }) =>
    [
      database,
      `\`${request}\``,
      server,
      format(result.requestsPerSecond),
      format(result.latencyP50Ms, 1),
      format(result.latencyP99Ms, 1),
      format(ratio, 2),
      String(result.failures),
    ].join(' | '),
  );
  return [
    '| Database | Request | Server | req/s | p50 ms | p99 ms | ratio to raw baseline | failures |',
    '|---|---|---|---:|---:|---:|---:|---:|',
    ...rows.map((row) => `| ${row} |`),
  ].join('\n');
}

/** The request name of the search rows. */
export const SEARCH_REQUEST = 'GET /books?q=42&page=0&size=20';

/** `numerator` req/s over `denominator` req/s of the same database, from one run. */
function rateRatio(
  measurements: readonly Measurement[],
  database: string,
  numerator: [string, string],
  denominator: [string, string],
) {
  const rate = ([request, server]: [string, string]) =>
    measurements.find((m) => m.database === database && m.request === request && m.server === server)?.result
      .requestsPerSecond ?? 0;
  const below = rate(denominator);
  return below === 0 ? 0 : rate(numerator) / below;
}

/** The issue's targets, checked against the runs of the service. */
export function targetsChecklist(measurements: readonly Measurement[], connections: number): string {
  const service = measurements.filter((m) => m.server === 'service');
  const postgres = service.filter((m) => m.database === 'PostgreSQL');
  const mark = (ok: boolean) => (ok ? 'met' : '**not met**');
  const lines = [
    postgres.length > 0
      ? `- At least 0.5 of the raw baseline on PostgreSQL: ${mark(postgres.every((m) => m.ratio >= 0.5))} (${postgres.map((m) => `${m.request}: ${format(m.ratio, 2)}`).join(', ')})`
      : '- At least 0.5 of the raw baseline on PostgreSQL: not measured (DATABASE_URL unset)',
    `- p99 ≤ 50 ms at ${connections} connections: ${mark(service.every((m) => m.result.latencyP99Ms <= 50))} (${service.map((m) => `${m.database} ${m.request}: ${format(m.result.latencyP99Ms, 1)} ms`).join(', ')})`,
    `- No failed requests: ${mark(measurements.every((m) => m.result.failures === 0))}`,
    ...[...new Set(measurements.map((m) => m.database))].flatMap((database) => {
      const list = 'GET /books?page=0&size=20';
      const search = rateRatio(measurements, database, [SEARCH_REQUEST, 'service'], [list, 'service']);
      const limited = rateRatio(measurements, database, [list, 'service'], [list, 'service, rate limit off']);
      return [
        `- ${database}: search (\`q\`) at least 0.5 of the plain list's req/s: ${mark(search >= 0.5)} (${format(search, 2)})`,
        `- ${database}: the in-process per-user rate limit costs at most 10 % of the list's req/s: ${mark(limited >= 0.9)} (with / without = ${format(limited, 2)}, cost ${format((1 - limited) * 100, 1)} %)`,
      ];
    }),
  ];
  return lines.join('\n');
}
