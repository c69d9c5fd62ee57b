/**
 * Times OpenAPI generation over a generated tree of controller modules, in a fresh process. The
 * first call is cold (each module's source is read for doc comments, each handler parsed for its
 * statuses, the JIT is cold); later calls reuse the source notes. Reports wall time and this
 * process's CPU time (user + system), which neighbours on a shared machine disturb far less.
 * Usage: tsx bench/openapi.ts <prefix dir>; prints one JSON line.
 */
import { performance } from 'node:perf_hooks';
import { createApp } from '@platform/endpoints';

const WARM_CALLS = 5;

const prefix = process.argv[2];
if (!prefix) throw new Error('usage: openapi.ts <prefix dir>');
const app = await createApp({ controllerPrefix: prefix });
const time = () => {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const document = app.openapi();
  const used = process.cpuUsage(cpu);
  return {
    wallMs: performance.now() - started,
    cpuMs: (used.user + used.system) / 1000,
    paths: Object.keys(document.paths).length,
  };
};
const cold = time();
const warm = Array.from({ length: WARM_CALLS }, time);
process.stdout.write(
  `${JSON.stringify({
    coldWallMs: cold.wallMs,
    coldCpuMs: cold.cpuMs,
    warmWallMs: Math.min(...warm.map((run) => run.wallMs)),
    warmCpuMs: Math.min(...warm.map((run) => run.cpuMs)),
    paths: cold.paths,
  })}\n`,
);
