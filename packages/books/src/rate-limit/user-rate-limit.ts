import {
  InProcessRateLimiter,
  type RateLimitDecider,
  type RateLimitDecision,
  RemoteRateLimiter,
} from '@platform/ratelimit';

/** The rate limit domain the book service asks for; a remote service's config must define it. */
export const RATE_LIMIT_DOMAIN = 'books';
/** The descriptor key carrying the user id: `[{key: "user", value: <user id>}]`. */
export const USER_KEY = 'user';

/** Where a user stands in the current window, as the RateLimit-* headers tell it. */
export interface UserLimitState {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window ends (also the Retry-After of a refusal). */
  resetSeconds: number;
}

export type RateLimitSettings =
  | { mode: 'off' }
  | { mode: 'in-process'; perMinute: number }
  | { mode: 'remote'; address: string; timeoutMs: number };

/**
 * Per-user limits on the rate limit decision engine of this repository (`@platform/ratelimit`): in
 * process on its memory store, or by asking a running rate limit service over gRPC. `check` answers
 * undefined when no limit applies: the user matches no rule, or the remote service failed (fail open:
 * `onFailure` is told, and the request goes through).
 */
export class UserRateLimit {
  constructor(
    private readonly decider: RateLimitDecider,
    private readonly onFailure: (error: unknown) => void,
    private readonly onSuccess: () => void = () => {},
  ) {}

  async check(userId: string): Promise<UserLimitState | undefined> {
    let decision: RateLimitDecision;
    try {
      decision = await this.decider.shouldRateLimit(RATE_LIMIT_DOMAIN, [
        { entries: [{ key: USER_KEY, value: userId }] },
      ]);
    } catch (error) {
      this.onFailure(error);
      return undefined;
    }
    this.onSuccess();
    const status = decision.descriptors[0];
    if (status?.limit === undefined) return undefined;
    return {
      allowed: !decision.overLimit,
      limit: status.limit.requestsPerUnit,
      remaining: status.remaining,
      resetSeconds: status.resetSeconds ?? 0,
    };
  }

  close(): Promise<void> {
    return this.decider.close();
  }
}

/** The in-process config: every user value of the `books` domain gets `perMinute` requests a minute. */
export function inProcessConfigYaml(perMinute: number): string {
  return [
    `domain: ${RATE_LIMIT_DOMAIN}`,
    'descriptors:',
    `  - key: ${USER_KEY}`,
    '    rate_limit:',
    '      unit: minute',
    `      requests_per_unit: ${perMinute}`,
    '',
  ].join('\n');
}

/** The decider the settings ask for; undefined when rate limiting is off. `nowMs` is the service clock. */
export function createDecider(
  settings: RateLimitSettings,
  nowMs: () => number,
): RateLimitDecider | undefined {
  if (settings.mode === 'off') return undefined;
  if (settings.mode === 'remote') {
    return new RemoteRateLimiter(settings.address, { timeoutMs: settings.timeoutMs });
  }
  return new InProcessRateLimiter({
    config: [{ name: 'books-rate-limit.yaml', yaml: inProcessConfigYaml(settings.perMinute) }],
    clock: nowMs,
  });
}
