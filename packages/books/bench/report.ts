import { cpus, loadavg } from 'node:os';
import type { LoadResult } from './load.js';

export interface Measurement {
  database: string;
  request: string;
  server: string;
  result: LoadResult;
  /** The server process's CPU time (user + system, all threads) per request; undefined without /proc. */
  cpuMicrosPerRequest: number | undefined;
}

export const RAW = 'raw baseline';
export const RAW_SESSION = 'raw baseline + session lookup';
export const SERVICE = 'service';
/** The PGlite thread the service does not use by default (PGLITE_THREAD), measured on its own rows. */
export const OTHER_THREAD = { setting: 'main', server: "service, PGlite in the server's thread" } as const;
export const LIST_REQUEST = 'GET /books?page=0&size=20';
export const BY_ID_REQUEST = 'GET /books/{id}';
/** The request name of the search rows. */
export const SEARCH_REQUEST = 'GET /books?q=42&page=0&size=20';

/** The issue's targets (issue 39). */
const TARGET_RATIO = 0.8;
const P99_MS: Record<string, number> = { PostgreSQL: 50, PGlite: 200 };

const format = (value: number, digits = 0) => value.toFixed(digits);

export function machineLine(): string {
  const cores = cpus();
  // The load average says how much else was running: on a shared machine it explains noisy numbers.
  const [load] = loadavg();
  return `${cores.length} cores (${cores[0]?.model.trim() ?? 'unknown CPU'}), Node ${process.version}, ${process.platform}, load average ${load?.toFixed(1)} at the end`;
}

const find = (measurements: readonly Measurement[], database: string, request: string, server: string) =>
  measurements.find((m) => m.database === database && m.request === request && m.server === server);

/**
 * A row against the "raw baseline + session lookup" row of the same database and request: by req/s,
 * and by CPU per request (theirs over ours, so above 1 means cheaper than the baseline, like req/s).
 */
function againstRawSession(measurements: readonly Measurement[], row: Measurement) {
  const baseline = find(measurements, row.database, row.request, RAW_SESSION);
  if (baseline === undefined) return undefined;
  const rate =
    baseline.result.requestsPerSecond === 0
      ? 0
      : row.result.requestsPerSecond / baseline.result.requestsPerSecond;
  const cpu =
    baseline.cpuMicrosPerRequest === undefined || row.cpuMicrosPerRequest === undefined
      ? undefined
      : baseline.cpuMicrosPerRequest / row.cpuMicrosPerRequest;
  return { rate, cpu };
}

/** The Markdown table of all runs, in the order they ran. */
export function resultsTable(measurements: readonly Measurement[]): string {
  const rows = measurements.map((row) => {
    const against = againstRawSession(measurements, row);
    return [
      row.database,
      `\`${row.request}\``,
      row.server,
      format(row.result.requestsPerSecond),
      row.cpuMicrosPerRequest === undefined ? 'n/a' : format(row.cpuMicrosPerRequest),
      format(row.result.latencyP50Ms, 1),
      format(row.result.latencyP99Ms, 1),
      against === undefined ? '' : format(against.rate, 2),
      against?.cpu === undefined ? '' : format(against.cpu, 2),
      String(row.result.failures),
    ].join(' | ');
  });
  return [
    '| Database | Request | Server | req/s | server CPU µs/req | p50 ms | p99 ms | req/s ÷ raw + session | CPU: raw + session ÷ row | failures |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((row) => `| ${row} |`),
  ].join('\n');
}

/** `numerator` req/s over `denominator` req/s of the same database, from one run. */
function rateRatio(
  measurements: readonly Measurement[],
  database: string,
  numerator: [string, string],
  denominator: [string, string],
) {
  const rate = ([request, server]: [string, string]) =>
    find(measurements, database, request, server)?.result.requestsPerSecond ?? 0;
  const below = rate(denominator);
  return below === 0 ? 0 : rate(numerator) / below;
}

const mark = (ok: boolean) => (ok ? 'met' : '**not met**');

/** The issue's targets, checked against the runs of the service. */
export function targetsChecklist(measurements: readonly Measurement[], connections: number): string {
  const databases = [...new Set(measurements.map((m) => m.database))];
  const rows = (database: string) =>
    [LIST_REQUEST, BY_ID_REQUEST].flatMap((request) => find(measurements, database, request, SERVICE) ?? []);
  const lines: string[] = [];
  const postgres = rows('PostgreSQL');
  if (postgres.length === 0) {
    lines.push(
      `- PostgreSQL, list and by id at least ${TARGET_RATIO} of raw baseline + session lookup: not measured (DATABASE_URL unset)`,
    );
  } else {
    const ratios = postgres.map((row) => ({ row, against: againstRawSession(measurements, row) }));
    lines.push(
      `- PostgreSQL, list and by id at least ${TARGET_RATIO} of raw baseline + session lookup (req/s): ${mark(ratios.every(({ against }) => (against?.rate ?? 0) >= TARGET_RATIO))} (${ratios
        .map(
          ({ row, against }) =>
            `${row.request}: ${format(against?.rate ?? 0, 2)}${against?.cpu === undefined ? '' : `, by CPU per request ${format(against.cpu, 2)}`}`,
        )
        .join('; ')})`,
    );
  }
  for (const database of databases) {
    const limit = P99_MS[database];
    if (limit === undefined) continue;
    const measured = rows(database);
    const other = [LIST_REQUEST, BY_ID_REQUEST].flatMap(
      (request) => find(measurements, database, request, OTHER_THREAD.server) ?? [],
    );
    const otherNote =
      other.length === 0
        ? ''
        : `; ${OTHER_THREAD.server}: ${other.map((m) => `${m.request}: ${format(m.result.latencyP99Ms, 1)} ms`).join(', ')}`;
    lines.push(
      `- ${database}, p99 ≤ ${limit} ms for list and by id at ${connections} connections: ${mark(measured.length > 0 && measured.every((m) => m.result.requests > 0 && m.result.latencyP99Ms <= limit))} (${measured.map((m) => `${m.request}: ${format(m.result.latencyP99Ms, 1)} ms`).join(', ')}${otherNote})`,
    );
  }
  // A row in which no request completed (a machine too loaded for the window) has no latency to judge.
  const silent = measurements.filter((m) => m.result.requests === 0);
  lines.push(
    `- No failed requests, and every row answered some: ${mark(silent.length === 0 && measurements.every((m) => m.result.failures === 0))}${silent.length === 0 ? '' : ` (no answer within the window: ${silent.map((m) => `${m.database} ${m.request} ${m.server}`).join('; ')})`}`,
  );
  for (const database of databases) {
    const search = rateRatio(measurements, database, [SEARCH_REQUEST, SERVICE], [LIST_REQUEST, SERVICE]);
    const limited = rateRatio(
      measurements,
      database,
      [LIST_REQUEST, SERVICE],
      [LIST_REQUEST, 'service, rate limit off'],
    );
    lines.push(
      `- ${database}: search (\`q\`) at least 0.5 of the plain list's req/s: ${mark(search >= 0.5)} (${format(search, 2)})`,
      `- ${database}: the in-process per-user rate limit costs at most 10 % of the list's req/s: ${mark(limited >= 0.9)} (with / without = ${format(limited, 2)}, cost ${format((1 - limited) * 100, 1)} %)`,
    );
  }
  return lines.join('\n');
}
