import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config/loader.js';
import { matchDescriptor } from '../../src/config/match.js';
import type { DomainConfig } from '../../src/config/tree.js';

const METHODS = ['GET', 'POST', 'DELETE', 'PUT'];
const LOOKUPS = 500_000;

/** A domain of `routes` route values, each with the four methods nested: 5 descriptors per route. */
export function generateConfigYaml(routes: number): string {
  const lines = ['domain: large', 'descriptors:'];
  for (let r = 0; r < routes; r++) {
    lines.push(
      '  - key: route',
      `    value: /api/v1/resource-${r}`,
      '    rate_limit: {unit: minute, requests_per_unit: 1000}',
      '    descriptors:',
    );
    for (const method of METHODS) {
      lines.push(
        '      - key: method',
        `        value: ${method}`,
        `        rate_limit: {unit: second, requests_per_unit: ${r + 10}}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

export interface ConfigSizeResult {
  readonly descriptors: number;
  /** The first load in this process (cold code), in ms. */
  readonly coldLoadMs: number;
  /** The median of three further loads, in ms. */
  readonly warmLoadMs: number;
  /** ns per matchDescriptor call, the same 4 routes asked of the large config and of a 4-route one. */
  readonly largeMatchNs: number;
  readonly smallMatchNs: number;
  /** ns per call against the large config when requests spread over 1,024 of its routes (cache misses). */
  readonly largeSpreadMatchNs: number;
}

function timeLoad(text: string): [number, DomainConfig] {
  const started = performance.now();
  const config = loadConfig([{ kind: 'yaml', name: 'large.yaml', text }], false);
  const elapsed = performance.now() - started;
  return [elapsed, config.domains.get('large') as DomainConfig];
}

/** Calls matchDescriptor over descriptors of `routes` distinct routes, round robin. */
function timeMatching(domain: DomainConfig, routes: number): number {
  const requests = Array.from({ length: 1024 }, (_, i) => [
    { key: 'route', value: `/api/v1/resource-${(i * 7919) % routes}` },
    { key: 'method', value: METHODS[i % METHODS.length] as string },
  ]);
  let matched = 0;
  const run = (count: number) => {
    for (let i = 0; i < count; i++) {
      if (matchDescriptor(domain, requests[i % requests.length] as (typeof requests)[number])) matched++;
    }
  };
  run(LOOKUPS / 10);
  const started = process.hrtime.bigint();
  run(LOOKUPS);
  const ns = Number(process.hrtime.bigint() - started) / LOOKUPS;
  if (matched !== LOOKUPS + LOOKUPS / 10) throw new Error('config-size bench: a lookup did not match');
  return ns;
}

/** This file, run as the child process that does the measuring. */
const SELF = fileURLToPath(import.meta.url);

/**
 * 10,000-descriptor config: load time, and matching speed next to a small config of the same shape.
 * Measured in a fresh Node process, like a server starting, rather than in the bench's own heap
 * after the other scenarios. The child runs this file through tsx: the scenario is not part of the
 * servers' dist build, and the loader's code runs the same either way.
 */
export function measureConfigSize(): ConfigSizeResult {
  const child = spawnSync(process.execPath, ['--import', 'tsx', SELF], {
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (child.status !== 0) {
    throw new Error(
      `config-size bench: the child process failed (${child.status ?? child.signal})\n${child.stderr}`,
    );
  }
  return JSON.parse(child.stdout) as ConfigSizeResult;
}

function measureInThisProcess(): ConfigSizeResult {
  const routes = 2000;
  const text = generateConfigYaml(routes);
  const [coldLoadMs, large] = timeLoad(text);
  const warm = [timeLoad(text)[0], timeLoad(text)[0], timeLoad(text)[0]].sort((a, b) => a - b);
  const [, small] = timeLoad(generateConfigYaml(4));
  // Interleaved, best of three, so a noisy neighbour does not pick the winner.
  const largeRuns: number[] = [];
  const smallRuns: number[] = [];
  for (let round = 0; round < 3; round++) {
    largeRuns.push(timeMatching(large, 4));
    smallRuns.push(timeMatching(small, 4));
  }
  return {
    descriptors: routes * (1 + METHODS.length),
    coldLoadMs,
    warmLoadMs: warm[1] as number,
    largeMatchNs: Math.min(...largeRuns),
    smallMatchNs: Math.min(...smallRuns),
    largeSpreadMatchNs: timeMatching(large, 1024),
  };
}

if (process.argv[1] === SELF) process.stdout.write(JSON.stringify(measureInThisProcess()));
