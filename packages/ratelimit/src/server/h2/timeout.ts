/** Milliseconds per unit of grpc-timeout (PROTOCOL-HTTP2.md: Hours, Minutes, Seconds, millis, micros, nanos). */
const UNIT_MS: Readonly<Record<string, number>> = {
  H: 3_600_000,
  M: 60_000,
  S: 1000,
  m: 1,
  u: 1e-3,
  n: 1e-6,
};

/** At most 8 digits, then the unit. */
const TIMEOUT = /^(\d{1,8})([HMSmun])$/;

/**
 * The grpc-timeout header in milliseconds: undefined without one, NaN for a malformed one (the
 * call is refused, as grpc-go does).
 */
export function parseGrpcTimeout(value: string | string[] | undefined): number | undefined {
  if (value === undefined) return undefined;
  const match = TIMEOUT.exec(String(value));
  if (!match) return Number.NaN;
  return Number(match[1]) * (UNIT_MS[match[2] as string] as number);
}

/** setTimeout's longest delay; a longer deadline (up to 99,999,999 hours) never fires in practice. */
export const MAX_TIMER_MS = 2 ** 31 - 1;
