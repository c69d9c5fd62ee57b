import {
  type Descriptor,
  InProcessRateLimiter,
  type RateLimitDecider,
  type RateLimitDecision,
  RemoteRateLimiter,
} from '@platform/ratelimit';

/** The rate limit domain the book service asks for; a remote service's config must define it. */
export const RATE_LIMIT_DOMAIN = 'books';
/** The descriptor key carrying the user id: `[{key: "user", value: <user id>}]`. */
export const USER_KEY = 'user';

export type RateLimitSettings =
  | { mode: 'off' }
  | { mode: 'in-process'; perMinute: number }
  | { mode: 'remote'; address: string; timeoutMs: number };

/** How many users' descriptors are kept built: a few hundred bytes each. */
const REMEMBERED_USERS = 1_000;

/**
 * Per-user limits on the rate limit decision engine of this repository (`@platform/ratelimit`): in
 * process on its memory store, or by asking a running rate limit service over gRPC. `decide` answers
 * undefined when the remote service failed (fail open: `onFailure` is told, and the request goes through).
 *
 * Every call of a signed-in user is checked, so the one-descriptor list of a user is built once and kept
 * for the last `maxRemembered` users (oldest dropped first), and the answer is chained without an async
 * function or a closure of its own: the check adds no garbage of its own to the engine's per request.
 */
export class UserRateLimit {
  private readonly descriptors = new Map<string, readonly Descriptor[]>();

  constructor(
    private readonly decider: RateLimitDecider,
    private readonly onFailure: (error: unknown) => void,
    private readonly onSuccess: () => void = () => {},
    private readonly maxRemembered = REMEMBERED_USERS,
  ) {}

  decide(userId: string): Promise<RateLimitDecision | undefined> {
    return this.decider
      .shouldRateLimit(RATE_LIMIT_DOMAIN, this.descriptorsOf(userId))
      .then(this.answered, this.failed);
  }

  /** The descriptor list `[{entries: [{key: "user", value: <user id>}]}]` of `userId`. */
  private descriptorsOf(userId: string): readonly Descriptor[] {
    const known = this.descriptors.get(userId);
    if (known !== undefined) return known;
    const built = [{ entries: [{ key: USER_KEY, value: userId }] }];
    if (this.descriptors.size >= this.maxRemembered) {
      const oldest = this.descriptors.keys().next().value;
      if (oldest !== undefined) this.descriptors.delete(oldest);
    }
    this.descriptors.set(userId, built);
    return built;
  }

  private readonly answered = (decision: RateLimitDecision): RateLimitDecision => {
    this.onSuccess();
    return decision;
  };

  private readonly failed = (error: unknown): undefined => {
    this.onFailure(error);
    return undefined;
  };

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
