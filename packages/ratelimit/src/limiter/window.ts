/** Rate limit units of envoyproxy/ratelimit, with the length of their fixed window in seconds. */
export const UNIT_SECONDS = {
  SECOND: 1,
  MINUTE: 60,
  HOUR: 3600,
  DAY: 86_400,
  // WEEK, MONTH and YEAR are fixed blocks counted from the epoch, not calendar periods.
  WEEK: 604_800,
  MONTH: 2_592_000,
  YEAR: 31_536_000,
} as const;

export type Unit = keyof typeof UNIT_SECONDS;

/** Parses a unit name case-insensitively, as the reference does; undefined when unknown. */
export function parseUnit(name: string): Unit | undefined {
  const upper = name.toUpperCase();
  return Object.hasOwn(UNIT_SECONDS, upper) ? (upper as Unit) : undefined;
}

/** Start of the epoch-aligned window holding `nowSeconds` (integer Unix seconds). */
export function windowStart(nowSeconds: number, unit: Unit): number {
  const divider = UNIT_SECONDS[unit];
  return Math.floor(nowSeconds / divider) * divider;
}

/** Whole seconds left in the window holding `nowSeconds`: `divider - now % divider`. */
export function secondsUntilReset(nowSeconds: number, unit: Unit): number {
  const divider = UNIT_SECONDS[unit];
  return divider - (nowSeconds % divider);
}

/**
 * Units of a request's limit override (envoy.type.v3.RateLimitUnit, which has no WEEK), by
 * their wire number. UNKNOWN (0) is absent on purpose: the service rejects it.
 */
export const OVERRIDE_UNITS: Readonly<Record<string, Unit>> = {
  SECOND: 'SECOND',
  MINUTE: 'MINUTE',
  HOUR: 'HOUR',
  DAY: 'DAY',
  MONTH: 'MONTH',
  YEAR: 'YEAR',
};
