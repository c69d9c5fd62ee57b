/**
 * Turns the rounds of samples into the Markdown table and the verdicts on issue 7's targets. Every
 * figure is a median over rounds, and every comparison is also counted round by round, where both
 * contenders ran minutes apart at most under the same neighbours.
 */
import type { Route, Sample } from './measure.js';

/** Samples by contender name, then by route path, one per round in round order. */
export type Samples = Map<string, Map<string, Sample[]>>;

export interface Summary {
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

function cpuValues(samples: readonly Sample[]): number[] | undefined {
  const values = samples.map((sample) => sample.cpuMicros);
  return values.every((value) => value !== undefined) ? (values as number[]) : undefined;
}

export function summarize(samples: readonly Sample[]): Summary {
  const cpu = cpuValues(samples);
  return {
    requests: median(samples.map((sample) => sample.requests)),
    p99: median(samples.map((sample) => sample.p99)),
    cpuMicros: cpu && median(cpu),
    cpuLow: cpu && Math.min(...cpu),
    cpuHigh: cpu && Math.max(...cpu),
  };
}

const samplesOf = (samples: Samples, name: string, path: string) => samples.get(name)?.get(path) ?? [];

export function table(samples: Samples, names: readonly string[], routes: readonly Route[]): string {
  const lines = [
    '| contender | route | requests/s (median) | vs node:http | p99 latency (ms) | server CPU µs/request (median) | CPU range over rounds | CPU vs node:http |',
    '|:--|:--|--:|--:|--:|--:|--:|--:|',
  ];
  const baselineName = names[0] as string;
  for (const route of routes) {
    const baseline = summarize(samplesOf(samples, baselineName, route.path));
    for (const name of names) {
      const measured = summarize(samplesOf(samples, name, route.path));
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
        `| ${name} | \`${route.path}\` | ${Math.round(measured.requests)} | ${ratio} | ${measured.p99} | ${cpu} | ${range} | ${cpuRatio} |`,
      );
    }
  }
  return lines.join('\n');
}

/** In how many rounds `better` held between our samples and theirs from the same round. */
function roundsWhere(
  ours: readonly Sample[],
  theirs: readonly Sample[],
  better: (a: Sample, b: Sample) => boolean,
) {
  let wins = 0;
  ours.forEach((sample, round) => {
    const other = theirs[round];
    if (other && better(sample, other)) wins += 1;
  });
  return `${wins} of ${ours.length} rounds`;
}

const verdict = (met: boolean) => (met ? 'met' : 'missed');

/**
 * The two throughput targets, judged on medians: by requests/s (what the issue names) and by server
 * CPU per request (the steadier measure when the load generator shares the cores).
 */
export function throughputVerdicts(
  samples: Samples,
  names: { baseline: string; ours: string; fastify: string },
  routes: readonly Route[],
): string[] {
  const lines: string[] = [];
  for (const route of routes) {
    const oursSamples = samplesOf(samples, names.ours, route.path);
    const baselineSamples = samplesOf(samples, names.baseline, route.path);
    const fastifySamples = samplesOf(samples, names.fastify, route.path);
    const ours = summarize(oursSamples);
    const baseline = summarize(baselineSamples);
    const fastify = summarize(fastifySamples);
    const throughputRatio = ours.requests / baseline.requests;
    const faster = (a: Sample, b: Sample) => a.requests > b.requests;
    lines.push(
      `- \`${route.path}\`, by requests/s: Node interface at ${throughputRatio.toFixed(2)} of node:http (target ≥ 0.90: ${verdict(throughputRatio >= 0.9)}); ` +
        `${ours.requests > fastify.requests ? 'beats' : 'does not beat'} fastify (${Math.round(ours.requests)} vs ${Math.round(fastify.requests)}; ahead in ${roundsWhere(oursSamples, fastifySamples, faster)}).`,
    );
    if (ours.cpuMicros !== undefined && baseline.cpuMicros !== undefined && fastify.cpuMicros !== undefined) {
      // Efficiency: the share of node:http's throughput the same CPU would give us.
      const efficiency = baseline.cpuMicros / ours.cpuMicros;
      const cheaper = (a: Sample, b: Sample) => (a.cpuMicros ?? 0) < (b.cpuMicros ?? 0);
      lines.push(
        `- \`${route.path}\`, by server CPU per request: Node interface at ${efficiency.toFixed(2)} of node:http's efficiency (target ≥ 0.90: ${verdict(efficiency >= 0.9)}); ` +
          `${ours.cpuMicros < fastify.cpuMicros ? 'cheaper than' : 'not cheaper than'} fastify (${ours.cpuMicros.toFixed(1)} vs ${fastify.cpuMicros.toFixed(1)} µs; cheaper in ${roundsWhere(oursSamples, fastifySamples, cheaper)}).`,
      );
    }
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
