import type { RateLimitDecision } from '@platform/ratelimit';
import type {
  FastifyBaseLogger,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
  onRequestHookHandler,
} from 'fastify';
import { AppError } from '../errors.js';
import type { UserRateLimit } from './user-rate-limit.js';

/**
 * The onRequest hook that runs before an operation's session guard: it counts the call against the
 * signed-in user's limit, sets `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (seconds,
 * draft-ietf-httpapi-ratelimit-headers), and refuses a call over the limit with 429 and `Retry-After`.
 * Anonymous calls are not counted: the guard refuses them next. A callback hook, not an async one: an
 * anonymous call passes without a promise, and a counted one costs one `then` on the decision.
 */
export function perUserRateLimit(limit: UserRateLimit): onRequestHookHandler {
  return function limitPerUser(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
    if (request.user === null) {
      done();
      return;
    }
    limit.decide(request.user.id).then((decision) => done(answer(decision, reply)));
  };
}

/** Sets the RateLimit-* headers of a decision; the refusal to pass on when it is over the limit. */
function answer(decision: RateLimitDecision | undefined, reply: FastifyReply): AppError | undefined {
  const status = decision?.descriptors[0];
  // No rule matched, or the remote service failed: no limit applies to this call.
  if (decision === undefined || status?.limit === undefined) return undefined;
  const resetSeconds = status.resetSeconds ?? 0;
  reply.header('ratelimit-limit', String(status.limit.requestsPerUnit));
  reply.header('ratelimit-remaining', String(status.remaining));
  reply.header('ratelimit-reset', String(resetSeconds));
  if (!decision.overLimit) return undefined;
  // At least a second: a window that ends this very second is still over for the rest of it.
  const retryAfter = Math.max(1, resetSeconds);
  reply.header('retry-after', String(retryAfter));
  return new AppError(
    'rate_limited',
    'RATE_LIMITED',
    `You have used all ${status.limit.requestsPerUnit} requests of this window; retry after ${retryAfter} s.`,
  );
}

/** How long the fail-open warning stays quiet after it was logged, while the service stays down. */
const WARNING_INTERVAL_MS = 60_000;

/**
 * Fail open, loudly: while the remote rate limit service does not answer, every call is allowed and
 * a warning is logged when it first fails and then at most once a minute (with how many calls went
 * through unlimited meanwhile), so a dead service neither floods the log nor goes unnoticed.
 */
export function failOpenReporter(log: FastifyBaseLogger, nowMs: () => number) {
  let down = false;
  let warnedAt = 0;
  let allowedUnlimited = 0;
  return {
    onFailure(error: unknown) {
      allowedUnlimited += 1;
      if (down && nowMs() - warnedAt < WARNING_INTERVAL_MS) return;
      log.warn(
        { err: error, allowedWithoutLimit: allowedUnlimited },
        'rate limit service unavailable: allowing requests without a per-user limit (fail open)',
      );
      down = true;
      warnedAt = nowMs();
      allowedUnlimited = 0;
    },
    onSuccess() {
      if (!down) return;
      down = false;
      log.info({ allowedWithoutLimit: allowedUnlimited }, 'rate limit service answers again');
      allowedUnlimited = 0;
    },
  };
}
