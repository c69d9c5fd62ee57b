import { readFileSync } from 'node:fs';

/** Linux clock ticks per second, the unit of utime/stime in /proc/<pid>/stat. */
const CLOCK_TICKS = 100;
const SAMPLE_EVERY_MS = 200;

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /VmRSS:\s+(\d+) kB/.exec(status);
  return match ? Number(match[1]) / 1024 : 0;
}

function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

export interface ProcessUsage {
  /** Highest resident set size seen while sampling, in MB. */
  readonly maxRssMb: number;
  /** CPU time used over the sampled interval divided by its wall time, in percent of one core. */
  readonly cpuPercent: number;
}

/** Samples a process's RSS and CPU from /proc while `work` runs. */
export async function measureProcess<T>(pid: number, work: () => Promise<T>): Promise<[T, ProcessUsage]> {
  let maxRss = rssMb(pid);
  const cpuBefore = cpuSeconds(pid);
  const started = performance.now();
  const timer = setInterval(() => {
    maxRss = Math.max(maxRss, rssMb(pid));
  }, SAMPLE_EVERY_MS);
  try {
    const result = await work();
    maxRss = Math.max(maxRss, rssMb(pid));
    const wallSeconds = (performance.now() - started) / 1000;
    return [result, { maxRssMb: maxRss, cpuPercent: (100 * (cpuSeconds(pid) - cpuBefore)) / wallSeconds }];
  } finally {
    clearInterval(timer);
  }
}

export { rssMb };
