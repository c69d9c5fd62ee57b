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
 * The in-process store holds one counter per user and minute. The rate limit service's defaults (2,000,000
 * counters, 256 MiB) are sized for a shared service: reserved here, they cost each app about 50 ms to set up
 * and made the collector run more often in a process that builds many apps. 100,000 users a minute per
 * process fit in the store's least size; past that, the users asked about least recently lose their count
 * first (the store's CLOCK eviction), so a limit is forgotten, never imposed on the wrong user.
 */
const IN_PROCESS_MAX_USERS = 100_000;
const IN_PROCESS_MAX_BYTES = 16 * 1024 * 1024;

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
    maxCounters: IN_PROCESS_MAX_USERS,
    maxBytes: IN_PROCESS_MAX_BYTES,
  });
}
