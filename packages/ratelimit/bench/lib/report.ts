import { cpus, loadavg } from 'node:os';
import type { LoadResult } from './load-result.js';
import type { ProcessUsage } from './process-stats.js';

export interface Row {
  readonly scenario: string;
  readonly result: LoadResult;
  readonly usage: ProcessUsage;
  /** The baseline row this one is compared with, by requests per second. */
  readonly baseline?: Row;
  /** This row is a baseline for others. */
  readonly isBaseline?: boolean;
}

export interface Target {
  readonly what: string;
  readonly target: string;
  readonly measured: string;
  readonly met: boolean;
}

const fixed = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

export function ratio(row: Row): number | undefined {
  return row.baseline ? row.result.requestsPerSecond / row.baseline.result.requestsPerSecond : undefined;
}

/**
 * Server CPU time per answered request in µs: the CPU share over the run divided by the rate.
 * The run's warm-up is served at about the same rate, so it cancels out. On a busy machine this
 * is steadier than req/s, which also counts the time the server waited for a core.
 */
export function cpuMicrosPerRequest(row: Row): number {
  return (row.usage.cpuPercent * 10_000) / row.result.requestsPerSecond;
}

export function machineLine(): string {
  const cpu = cpus();
  return `${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown CPU'}), Node ${process.version}, load average at start ${loadavg()
    .map((value) => value.toFixed(1))
    .join(' / ')}`;
}

function ratioCell(row: Row): string {
  const r = ratio(row);
  if (r !== undefined) return `${r.toFixed(2)} of ${row.baseline?.scenario}`;
  return row.isBaseline ? 'baseline' : '—';
}

export function renderRows(rows: readonly Row[]): string {
  const lines = [
    '| scenario | req/s | p50 ms | p99 ms | server RSS MB | server CPU % | server CPU µs/req | failed | ratio to baseline |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const row of rows) {
    lines.push(
      `| ${row.scenario} | ${fixed(row.result.requestsPerSecond, 0)} | ${fixed(row.result.p50Ms, 2)} | ${fixed(row.result.p99Ms, 2)} | ${fixed(row.usage.maxRssMb, 0)} | ${fixed(row.usage.cpuPercent, 0)} | ${fixed(cpuMicrosPerRequest(row), 1)} | ${row.result.failed} | ${ratioCell(row)} |`,
    );
  }
  return lines.join('\n');
}

export function renderTargets(targets: readonly Target[]): string {
  const lines = ['| target | wanted | measured | met |', '|---|---|---|---|'];
  for (const t of targets)
    lines.push(`| ${t.what} | ${t.target} | ${t.measured} | ${t.met ? 'yes' : '**no**'} |`);
  return lines.join('\n');
}

export function renderCommands(rows: readonly Row[]): string {
  return rows.map((row) => `- ${row.scenario}: \`${row.result.command}\``).join('\n');
}
