/**
 * Turns the rounds of samples into the Markdown tables and the verdicts on the targets. Every
 * figure is a median over rounds, and every comparison is also made round by round, where both
 * contenders ran seconds apart under the same neighbours.
 */
import type { Route, Sample } from './measure.js';

/** Samples by contender name, then by route label, one per round in round order. */
export type Samples = Map<string, Map<string, Sample[]>>;

export interface Summary {
  /** Windows that answered anything; the figures below are medians over those. */
  readonly windows: number;
  readonly requests: number;
  readonly p99: number;
  readonly cpuMicros: number | undefined;
  readonly cpuLow: number | undefined;
  readonly cpuHigh: number | undefined;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/**
 * A window in which nothing was answered (on a loaded machine, 100 connections may not even open
 * within a second) says nothing about the server, so it counts for no one.
 */
const counted = (sample: Sample | undefined): sample is Sample => sample !== undefined && sample.answered > 0;

function cpuValues(samples: readonly Sample[]): number[] | undefined {
  const values = samples.map((sample) => sample.cpuMicros);
  return values.every((value) => value !== undefined) ? (values as number[]) : undefined;
}

export function summarize(all: readonly Sample[]): Summary {
  const samples = all.filter(counted);
  const cpu = cpuValues(samples);
  return {
    windows: samples.length,
    requests: median(samples.map((sample) => sample.requests)),
    p99: median(samples.map((sample) => sample.p99)),
    cpuMicros: cpu && median(cpu),
    cpuLow: cpu && Math.min(...cpu),
    cpuHigh: cpu && Math.max(...cpu),
  };
}

/** How a route is named in tables: its path, with `POST` in front when it sends a body. */
export function routeLabel(route: Route): string {
  return route.json === undefined ? route.path : `POST ${route.path}`;
}

const samplesOf = (samples: Samples, name: string, route: Route) =>
  samples.get(name)?.get(routeLabel(route)) ?? [];

export function table(samples: Samples, names: readonly string[], routes: readonly Route[]): string {
  const lines = [
    '| contender | route | rounds counted | requests/s (median) | vs node:http | p99 latency (ms) | server CPU µs/request (median) | CPU range over rounds | CPU vs node:http |',
    '|:--|:--|--:|--:|--:|--:|--:|--:|--:|',
  ];
  const baselineName = names[0] as string;
  for (const route of routes) {
    const baseline = summarize(samplesOf(samples, baselineName, route));
    for (const name of names) {
      const measured = summarize(samplesOf(samples, name, route));
      const ratio = (measured.requests / baseline.requests).toFixed(2);
      const cpu = measured.cpuMicros === undefined ? 'n/a' : measured.cpuMicros.toFixed(1);
      const range =
        measured.cpuLow === undefined || measured.cpuHigh === undefined
          ? 'n/a'
          : `${measured.cpuLow.toFixed(1)}–${measured.cpuHigh.toFixed(1)}`;
      const cpuRatio =
        measured.cpuMicros === undefined || baseline.cpuMicros === undefined
          ? 'n/a'
          : (measured.cpuMicros / baseline.cpuMicros).toFixed(2);
      lines.push(
        `| ${name} | \`${routeLabel(route)}\` | ${measured.windows} | ${Math.round(measured.requests)} | ${ratio} | ${measured.p99} | ${cpu} | ${range} | ${cpuRatio} |`,
      );
    }
  }
  return lines.join('\n');
}

/** The contenders the targets compare, by their names in the run. */
export interface Roles {
  readonly baseline: string;
  readonly ours: string;
  readonly oursFetch: string;
  readonly fastify: string;
  readonly hono: string;
  /** Ours through the fetch interface on hono's adapter: the framework against hono's, host alike. */
  readonly oursFetchHono: string;
}

/** The contenders in the order of the per-route tables: node:http, the Node interface's peers, the fetch interface's. */
const columnsOf = (roles: Roles) => [
  roles.baseline,
  roles.ours,
  roles.fastify,
  roles.oursFetch,
  roles.hono,
  roles.oursFetchHono,
];

/** A figure with its ratio to node:http's, or the figure alone in node:http's own column. */
function withRatio(value: number | undefined, baseline: number | undefined, isBaseline: boolean): string {
  if (value === undefined || baseline === undefined) return 'n/a';
  return isBaseline ? `${value.toFixed(1)} µs` : `${value.toFixed(1)} µs (${(value / baseline).toFixed(2)}×)`;
}

/**
 * Server CPU per request, one row per route, each figure with its ratio to node:http: the shape
 * of the issue's table, where the targets are read.
 */
export function cpuTable(samples: Samples, roles: Roles, routes: readonly Route[]): string {
  const columns = columnsOf(roles);
  const lines = [`| route | ${columns.join(' | ')} |`, `|:--|${columns.map(() => '--:').join('|')}|`];
  for (const route of routes) {
    const baseline = summarize(samplesOf(samples, roles.baseline, route)).cpuMicros;
    const cells = columns.map((name) =>
      withRatio(summarize(samplesOf(samples, name, route)).cpuMicros, baseline, name === roles.baseline),
    );
    lines.push(`| \`${routeLabel(route)}\` | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

/** CPU time per request without sockets, in ns, by contender name, then route label: every window of every round. */
export type SocketlessWindows = Map<string, Map<string, number[]>>;

/**
 * The socketless figures (bench/socketless.ts), one row per route: each contender's median window
 * with its ratio to node:http, and ours through srvx against hono.
 */
export function socketlessTable(windows: SocketlessWindows, roles: Roles, routes: readonly Route[]): string {
  const columns = columnsOf(roles);
  const lines = [
    `| route | ${columns.join(' | ')} | fetch via srvx / hono |`,
    `|:--|${columns.map(() => '--:').join('|')}|--:|`,
  ];
  for (const route of routes) {
    const micros = (name: string) => {
      const values = windows.get(name)?.get(routeLabel(route));
      return values === undefined || values.length === 0 ? undefined : median(values) / 1000;
    };
    const baseline = micros(roles.baseline);
    const cells = columns.map((name) => withRatio(micros(name), baseline, name === roles.baseline));
    const ours = micros(roles.oursFetch);
    const hono = micros(roles.hono);
    const versus = ours === undefined || hono === undefined ? 'n/a' : `${(ours / hono).toFixed(2)}×`;
    lines.push(`| \`${routeLabel(route)}\` | ${cells.join(' | ')} | ${versus} |`);
  }
  return lines.join('\n');
}

/**
 * A comparison round by round, where both contenders ran seconds apart: in how many rounds ours
 * cost no more CPU per request than theirs, and the median of the rounds' ratios (ours / theirs),
 * which a slow spell of the machine moves far less than it moves each contender's own median.
 */
function roundByRound(ours: readonly Sample[], theirs: readonly Sample[]): string {
  let held = 0;
  const ratios: number[] = [];
  ours.forEach((sample, round) => {
    const other = theirs[round];
    if (!counted(sample) || !counted(other)) return;
    if (sample.cpuMicros === undefined || other.cpuMicros === undefined) return;
    ratios.push(sample.cpuMicros / other.cpuMicros);
    if (sample.cpuMicros <= other.cpuMicros) held += 1;
  });
  if (ratios.length === 0) return 'no round to compare';
  return `held in ${held} of ${ratios.length} rounds, ${median(ratios).toFixed(2)}× round by round`;
}

const verdict = (met: boolean) => (met ? 'met' : 'missed');

/** The routes on which the Node interface must stay within 3 % of node:http's CPU. */
const PARITY_PATHS = new Set(['/', '/users/42/posts/7']);

/**
 * The issue's targets, judged on medians of server CPU per request (and requests/s for the last),
 * each with the count of rounds in which it held.
 */
export function throughputVerdicts(samples: Samples, roles: Roles, routes: readonly Route[]): string[] {
  const lines: string[] = [];
  for (const route of routes) {
    const label = `\`${routeLabel(route)}\``;
    const of = (name: string) => samplesOf(samples, name, route);
    const median = (name: string) => summarize(of(name));
    const ours = median(roles.ours);
    const oursFetch = median(roles.oursFetch);
    const baseline = median(roles.baseline);
    const fastify = median(roles.fastify);
    const hono = median(roles.hono);
    const oursFetchHono = median(roles.oursFetchHono);
    if (
      ours.cpuMicros === undefined ||
      oursFetch.cpuMicros === undefined ||
      baseline.cpuMicros === undefined ||
      fastify.cpuMicros === undefined ||
      hono.cpuMicros === undefined ||
      oursFetchHono.cpuMicros === undefined
    ) {
      lines.push(`- ${label}: no CPU figures on this platform.`);
      continue;
    }
    const parts = [
      `Node interface ${ours.cpuMicros.toFixed(1)} vs fastify ${fastify.cpuMicros.toFixed(1)} µs (≤ fastify: ${verdict(ours.cpuMicros <= fastify.cpuMicros)}; ${roundByRound(of(roles.ours), of(roles.fastify))})`,
    ];
    if (PARITY_PATHS.has(route.path) && route.json === undefined) {
      const ratio = ours.cpuMicros / baseline.cpuMicros;
      parts.push(
        `${ratio.toFixed(2)}× node:http's CPU (≤ 1.03×: ${verdict(ratio <= 1.03)}; ${roundByRound(of(roles.ours), of(roles.baseline))})`,
      );
    }
    parts.push(
      `fetch interface ${oursFetch.cpuMicros.toFixed(1)} vs hono ${hono.cpuMicros.toFixed(1)} µs (≤ hono: ${verdict(oursFetch.cpuMicros <= hono.cpuMicros)}; ${roundByRound(of(roles.oursFetch), of(roles.hono))})`,
    );
    parts.push(
      `on hono's own adapter (no target: the framework alone against hono) ${oursFetchHono.cpuMicros.toFixed(1)} vs ${hono.cpuMicros.toFixed(1)} µs (${roundByRound(of(roles.oursFetchHono), of(roles.hono))})`,
    );
    const throughput = ours.requests / baseline.requests;
    parts.push(
      `Node interface at ${throughput.toFixed(2)} of node:http's requests/s (≥ 0.95: ${verdict(throughput >= 0.95)})`,
    );
    lines.push(`- ${label}: ${parts.join('; ')}.`);
  }
  return lines;
}

export function discoveryVerdict(
  modules: number,
  runs: number,
  discovery: { js: number; ts: number; tsCold: number },
): string {
  const met = (ms: number) => verdict(ms < 1000);
  return (
    `- Discovery of ${modules} modules (startup: scan, import, parameter lists, tree; best of ${runs} fresh processes): ` +
    `${discovery.js.toFixed(0)} ms as JavaScript (target < 1000 ms: ${met(discovery.js)}), ` +
    `${discovery.ts.toFixed(0)} ms as TypeScript with tsx's cache (${met(discovery.ts)}), ` +
    `${discovery.tsCold.toFixed(0)} ms as TypeScript compiled cold by tsx (${met(discovery.tsCold)}).`
  );
}

export interface OpenapiTimes {
  readonly coldCpuMs: number;
  readonly coldWallMs: number;
  readonly warmCpuMs: number;
  readonly warmWallMs: number;
}

/**
 * The generation target, judged on the cold (first) generation's CPU time: on a shared machine the
 * wall time mostly measures the neighbours, so it is reported beside it.
 */
export function openapiVerdict(modules: number, runs: number, times: OpenapiTimes): string {
  return (
    `- OpenAPI document for ${modules} modules (\`app.openapi()\`, ${modules * 2} paths; lowest of ${runs} fresh processes): ` +
    `first, cold generation ${times.coldCpuMs.toFixed(0)} ms of CPU (target < 200 ms: ${verdict(times.coldCpuMs < 200)}), ` +
    `${times.coldWallMs.toFixed(0)} ms of wall time; once warm ${times.warmCpuMs.toFixed(0)} ms of CPU, ${times.warmWallMs.toFixed(0)} ms of wall time.`
  );
}

/** One `tsc --noEmit` of a consumer. */
interface TscRun {
  readonly command: string;
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly totalMs: number;
  readonly types: number;
}

/** What bench/types.ts prints. */
export interface TypesFigures {
  readonly modules: number;
  /** The generated app's and the consumers' compiler options. */
  readonly tsconfig: { readonly lib: readonly string[]; readonly types: readonly string[] };
  /** Each cold run of `endpoints openapi --project`, and the command. */
  readonly cli: { readonly command: string; readonly runs: readonly { wallMs: number; cpuMs: number }[] };
  readonly openapi: { wallMs: number; cpuMs: number };
  /** The command that wrote our consumer's module. */
  readonly emitted: string;
  readonly ours: readonly TscRun[];
  readonly hono: readonly TscRun[];
  readonly perRequest: Record<string, { off: number; strict: number }>;
  readonly perRequestCommand: string;
}

/** Issue 37's rows: the typed document's cold time, the consumer's tsc time, strict validation's cost. */
export function typesVerdicts(figures: TypesFigures): string[] {
  const { modules, tsconfig, cli, openapi, ours, hono } = figures;
  const fastestOf = <T extends { wallMs: number }>(runs: readonly T[]) =>
    [...runs].sort((a, b) => a.wallMs - b.wallMs)[0] as T;
  const seconds = (ms: number) => (ms / 1000).toFixed(2);
  const fastest = fastestOf(cli.runs);
  const tsc = (runs: readonly TscRun[]) => {
    const best = fastestOf(runs);
    return {
      best,
      text:
        `${seconds(best.wallMs)} s of wall time, ${seconds(best.cpuMs)} s of CPU, ${seconds(best.totalMs)} s by tsc's own Total time, ${best.types} types, the fastest of ${runs.length} runs ` +
        `(all: ${runs.map((run) => `${seconds(run.wallMs)} s wall / ${seconds(run.cpuMs)} s CPU`).join(', ')})`,
    };
  };
  const oursTsc = tsc(ours);
  const honoTsc = tsc(hono);
  const rows = Object.entries(figures.perRequest).map(
    ([route, { off, strict }]) =>
      `| \`${route}\` | ${off.toFixed(1)} | ${strict.toFixed(1)} | ${strict >= off ? '+' : '−'}${Math.abs(strict - off).toFixed(1)} (${(strict / off).toFixed(2)}x) |`,
  );
  return [
    `- The generated app and the consumers compile as a Node server does: \`lib: ${JSON.stringify(tsconfig.lib)}\`, \`types: ${JSON.stringify(tsconfig.types)}\`, no DOM.`,
    `- \`endpoints openapi --project\` over ${modules} generated modules, cold (the command as \`npx endpoints\` runs it, start to exit, tsx's transform cache off): ` +
      `${seconds(fastest.wallMs)} s of wall time and ${seconds(fastest.cpuMs)} s of CPU, the fastest of ${cli.runs.length} runs (target < 3 s: ${verdict(fastest.wallMs < 3000)}; all runs ${cli.runs.map((run) => `${seconds(run.wallMs)} s wall / ${seconds(run.cpuMs)} s CPU`).join(', ')}). ` +
      `Command: \`${cli.command}\`. ` +
      `Separately, \`app.openapi({ project })\` alone (the TypeScript program built and ${modules * 2} handlers read, in a fresh process): ` +
      `${seconds(openapi.wallMs)} s of wall time, ${seconds(openapi.cpuMs)} s of CPU.`,
    `- \`tsc --noEmit\` of a consumer calling all ${modules * 2} operations through \`endpoints client\`'s module (\`http.<operationId>(input)\`): ` +
      `${oursTsc.text} (target < 5 s: ${verdict(oursTsc.best.wallMs < 5000)}). Commands: \`${figures.emitted}\`, then \`${oursTsc.best.command}\`. ` +
      `The same consumer through hono's RPC client (\`hc<AppType>\` over ${modules} sub-apps mounted with \`.route()\`, inferred from the server's code): ` +
      `${honoTsc.text}; command: \`${honoTsc.best.command}\`. The two ran by turns.`,
    '',
    `\`responseValidation: 'strict'\` against off, CPU µs per request through \`app.fetch\` without sockets (median of 7 alternating windows of 5,000 requests; ${figures.perRequestCommand}):`,
    '',
    '| route | off | strict | cost |',
    '|---|---|---|---|',
    ...rows,
  ];
}
