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
  ];
  return lines.join('\n');
}
