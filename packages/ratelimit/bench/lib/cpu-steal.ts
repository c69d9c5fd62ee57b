import { readFileSync } from 'node:fs';

/** The machine's CPU time so far, from /proc/stat: all of it and the part the hypervisor took. */
export interface CpuTimes {
  readonly total: number;
  readonly steal: number;
}

export function readCpuTimes(): CpuTimes | undefined {
  try {
    const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1);
    const ticks = fields.map(Number);
    // user nice system idle iowait irq softirq steal (guest time is already in user).
    return { total: ticks.slice(0, 8).reduce((sum, value) => sum + value, 0), steal: ticks[7] ?? 0 };
  } catch {
    return undefined;
  }
}

/**
 * The share of the machine's CPU time the hypervisor took since `start` ("steal"): on a shared
 * virtual machine it is the noise that no ratio can cancel.
 */
export function stealSince(start: CpuTimes | undefined): string {
  const now = readCpuTimes();
  if (!start || !now || now.total === start.total) return 'unknown';
  return `${((100 * (now.steal - start.steal)) / (now.total - start.total)).toFixed(0)} %`;
}
