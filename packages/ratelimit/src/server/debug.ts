import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { dumpConfig } from '../config/dump.js';
import type { RateLimitConfig } from '../config/tree.js';
import type { StatStore } from '../stats/store.js';
import { boundedHttpServer, type HttpClientLimits } from './client-limits.js';
import { plainError } from './http.js';
import { cpuProfile, executionTrace, heapSnapshot, ProfilerBusyError } from './profiling.js';

/** The reference's debug listing, sorted by path; `/` is a catch-all that prints it. */
const LISTING = [
  '/debug/pprof/: root of various pprof endpoints. hit for help.',
  '/debug/pprof/profile: CPU profiling endpoint',
  '/debug/pprof/trace: trace endpoint',
  '/rlconfig: print out the currently loaded configuration for debugging',
  '/stats: print out stats',
]
  .map((line) => `${line}\n`)
  .join('');

const PPROF_HELP = [
  'Profiles of this Node.js process, recorded with node:inspector:',
  '/debug/pprof/profile?seconds=N: V8 CPU profile of the next N seconds (default 30), a .cpuprofile file',
  '/debug/pprof/heap: V8 heap snapshot, a .heapsnapshot file (pauses the process while it is taken)',
  '/debug/pprof/trace?seconds=N: Chrome trace-event JSON of the next N seconds (default 1)',
  'Open the files in Chrome DevTools (Performance / Memory) or https://ui.perfetto.dev.',
]
  .map((line) => `${line}\n`)
  .join('');

const MAX_PROFILE_SECONDS = 300;

export interface DebugSources {
  readonly config: () => RateLimitConfig | undefined;
  readonly stats: StatStore;
}

/** The debug server: listing, /rlconfig, /stats and the /debug/pprof/ equivalents. */
export function createDebugServer(sources: DebugSources, limits: HttpClientLimits): Server {
  return boundedHttpServer(limits, (request, response) => {
    route(sources, request, response).catch((error: Error) => plainError(response, 500, error.message));
  });
}

async function route(
  sources: DebugSources,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  // `//` or `//x:y` parse as a URL without a host (or with a bad port), which URL refuses.
  const url = URL.canParse(request.url ?? '/', 'http://debug')
    ? new URL(request.url ?? '/', 'http://debug')
    : undefined;
  if (!url) return plainError(response, 400, 'Bad Request');
  switch (url.pathname) {
    case '/rlconfig':
      return text(response, dumpConfig(sources.config()));
    case '/stats':
      return text(response, statsText(sources.stats));
    case '/debug/pprof/':
      return text(response, PPROF_HELP);
    case '/debug/pprof/profile':
      return download(response, 'profile.cpuprofile', () => cpuProfile(seconds(url, 30)));
    case '/debug/pprof/heap':
      return download(response, 'heap.heapsnapshot', () => heapSnapshot());
    case '/debug/pprof/trace':
      return download(response, 'trace.json', () => executionTrace(seconds(url, 1)));
    default:
      return text(response, LISTING);
  }
}

function seconds(url: URL, fallback: number): number {
  const value = Number(url.searchParams.get('seconds') ?? fallback);
  if (!Number.isFinite(value) || value <= 0) return fallback;
  return Math.min(value, MAX_PROFILE_SECONDS);
}

/** `<name>: <value>` for every counter and gauge, sorted by name. */
export function statsText(stats: StatStore): string {
  const snapshot = stats.snapshot();
  const lines: string[] = [];
  for (const [name, value] of snapshot.counters) lines.push(`${name}: ${value}`);
  for (const [name, value] of snapshot.gauges) lines.push(`${name}: ${value}`);
  for (const [name, samples] of snapshot.timers)
    lines.push(`${name}: ${samples.length} samples since last flush`);
  lines.sort();
  return lines.map((line) => `${line}\n`).join('');
}

function text(response: ServerResponse, body: string): void {
  response.writeHead(200, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  response.end(body);
}

async function download(
  response: ServerResponse,
  fileName: string,
  produce: () => Promise<string>,
): Promise<void> {
  try {
    const body = await produce();
    response.writeHead(200, {
      'content-type': 'application/octet-stream',
      'content-disposition': `attachment; filename="${fileName}"`,
      'content-length': Buffer.byteLength(body),
    });
    response.end(body);
  } catch (error) {
    plainError(response, error instanceof ProfilerBusyError ? 409 : 500, (error as Error).message);
  }
}
