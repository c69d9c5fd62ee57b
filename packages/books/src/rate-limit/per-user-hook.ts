import type { FastifyBaseLogger, FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { AppError } from '../errors.js';
import type { UserRateLimit } from './user-rate-limit.js';

/**
 * The onRequest hook that runs before an operation's session guard: it counts the call against the
 * signed-in user's limit, sets `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (seconds,
 * draft-ietf-httpapi-ratelimit-headers), and refuses a call over the limit with 429 and `Retry-After`.
 * Anonymous calls are not counted: the guard refuses them next.
 */
export function perUserRateLimit(limit: UserRateLimit): onRequestAsyncHookHandler {
  return async function limitPerUser(request: FastifyRequest, reply: FastifyReply) {
    if (request.user === null) return;
    const state = await limit.check(request.user.id);
    if (state === undefined) return;
    reply.header('ratelimit-limit', String(state.limit));
    reply.header('ratelimit-remaining', String(state.remaining));
    reply.header('ratelimit-reset', String(state.resetSeconds));
    if (state.allowed) return;
    // At least a second: a window that ends this very second is still over for the rest of it.
    reply.header('retry-after', String(Math.max(1, state.resetSeconds)));
    throw new AppError(
      'rate_limited',
      'RATE_LIMITED',
      `You have used all ${state.limit} requests of this window; retry after ${Math.max(1, state.resetSeconds)} s.`,
    );
  };
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
