// The web front's row of the benchmark: the home page (20 books, HTML) on the same service process and
// database as the JSON list, measured right after it, so the two come from one run.
import type { Measurement } from './report.js';
import type { BenchServer } from './servers/spawn.js';

export const HOME_REQUEST = 'GET /?page=0&size=20 (home page, HTML)';
export const HOME_SERVER = 'service, web front';
const LIST_REQUEST = 'GET /books?page=0&size=20';

interface Contender {
  name: string;
  port: number;
  server: BenchServer;
  cookie: string;
}

/** The plan entry: the home page as a browser asks for it, with the list's service and session. */
export function homePagePlan(service: Contender) {
  return {
    path: '/?page=0&size=20',
    request: HOME_REQUEST,
    accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
    contenders: [{ ...service, name: HOME_SERVER }],
  };
}

/** Per database: the home page renders at least 0.5 times as fast as the JSON list (req/s, one run). */
export function homePageTargets(measurements: readonly Measurement[]): string[] {
  const rate = (database: string, request: string, server: string) =>
    measurements.find((m) => m.database === database && m.request === request && m.server === server)?.result
      .requestsPerSecond ?? 0;
  return [...new Set(measurements.map((m) => m.database))].map((database) => {
    const list = rate(database, LIST_REQUEST, 'service');
    const ratio = list === 0 ? 0 : rate(database, HOME_REQUEST, HOME_SERVER) / list;
    const verdict = ratio >= 0.5 ? 'met' : '**not met**';
    return `- ${database}: the home page (20 books, HTML) at least 0.5 of the JSON list's req/s: ${verdict} (${ratio.toFixed(2)})`;
  });
}
