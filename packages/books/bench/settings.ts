// The BENCH_* counts of the bench scripts, read from the environment: a value that is not a positive
// integer stops the run with its name, rather than a run of no rows or NaN-second windows.

/** `env[name]` as a positive integer, or `fallback` when it is unset or empty. */
export function benchCount(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) {
    throw new Error(`${name} must be a positive integer, got '${raw}'`);
  }
  return value;
}
