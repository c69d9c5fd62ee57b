/**
 * The rate limit units, in one table for the config readers, the codecs, the xDS conversion and
 * the limiter. For each unit:
 * - `seconds`: the length of its fixed window. WEEK, MONTH and YEAR are fixed blocks counted
 *   from the epoch, not calendar periods, as in the reference (`UnitToDivider`).
 * - `number`: its number in rls.proto's RateLimitResponse.RateLimit.Unit and rls_conf.proto's
 *   RateLimitUnit (WEEK was added last, as 7).
 * - `inOverride`: whether envoy.type.v3.RateLimitUnit, the unit of a request's limit override,
 *   has it (it has no WEEK; its other numbers are the same).
 */
export const UNITS = {
  SECOND: { seconds: 1, number: 1, inOverride: true },
  MINUTE: { seconds: 60, number: 2, inOverride: true },
  HOUR: { seconds: 3600, number: 3, inOverride: true },
  DAY: { seconds: 86_400, number: 4, inOverride: true },
  WEEK: { seconds: 604_800, number: 7, inOverride: false },
  MONTH: { seconds: 2_592_000, number: 5, inOverride: true },
  YEAR: { seconds: 31_536_000, number: 6, inOverride: true },
} as const;

export type Unit = keyof typeof UNITS;

/** Number 0 of every unit enum: an unset unit. */
export const UNKNOWN_UNIT = 'UNKNOWN';

const UNIT_NAMES = Object.keys(UNITS) as Unit[];

/** Window length in seconds of a unit. */
export function unitSeconds(unit: Unit): number {
  return UNITS[unit].seconds;
}

/** Parses a unit name case-insensitively, as the reference's config does; undefined when unknown. */
export function parseUnit(name: string): Unit | undefined {
  const upper = name.toUpperCase();
  return Object.hasOwn(UNITS, upper) ? (upper as Unit) : undefined;
}

/** The response enum number of a unit name: 0 for UNKNOWN, undefined for a name not in the enum. */
export function unitNumber(name: string): number | undefined {
  if (name === UNKNOWN_UNIT) return 0;
  return Object.hasOwn(UNITS, name) ? UNITS[name as Unit].number : undefined;
}

/** The enum names of a request's limit override, by number (UNKNOWN is 0). */
export const OVERRIDE_UNIT_NAMES: readonly string[] = [
  UNKNOWN_UNIT,
  ...UNIT_NAMES.filter((unit) => UNITS[unit].inOverride).sort((a, b) => UNITS[a].number - UNITS[b].number),
];

/** A request override's unit as a limiter unit; undefined for UNKNOWN or a name the override enum lacks. */
export function overrideUnit(name: string): Unit | undefined {
  const unit = Object.hasOwn(UNITS, name) ? UNITS[name as Unit] : undefined;
  return unit?.inOverride ? (name as Unit) : undefined;
}
