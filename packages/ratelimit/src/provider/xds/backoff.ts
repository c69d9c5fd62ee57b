/** XDS_CLIENT_BACKOFF_* settings. */
export interface BackoffSettings {
  readonly initialIntervalMs: number;
  readonly maxIntervalMs: number;
  /** The growth factor per attempt (jpillora/backoff's Factor). */
  readonly randomFactor: number;
  readonly jitter: boolean;
}

/**
 * The reference's reconnect delay (jpillora/backoff): `initial * factor^attempt`, with jitter drawn
 * uniformly between the initial interval and that value, clamped to [initial, max]. With the default
 * factor 0.5 every delay is the initial interval; a factor above 1 grows exponentially.
 */
export function backoffDelay(
  settings: BackoffSettings,
  attempt: number,
  random: () => number = Math.random,
): number {
  const { initialIntervalMs: min, maxIntervalMs: max } = settings;
  const factor = settings.randomFactor > 0 ? settings.randomFactor : 2;
  let delay = min * factor ** attempt;
  if (settings.jitter) delay = random() * (delay - min) + min;
  return Math.min(max, Math.max(min, delay));
}
