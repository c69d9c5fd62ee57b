import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest, onSendHookHandler, preHandlerHookHandler } from 'fastify';
import { signedInUser } from '../../auth/signed-in-user.js';
import type { Clock } from '../../clock.js';
import { AppError } from '../../errors.js';
import type { IdempotencyRepository } from '../../modules/idempotency/idempotency.repository.js';

/** The headers of the first answer a replay repeats (the rest are per response: request id, limits). */
const REPLAYED_HEADERS = ['content-type', 'location', 'etag'];

// The draft's Idempotency-Key is a structured-field string ("…"); a bare token is accepted as well.
const KEY = /^"?([\x21\x23-\x5B\x5D-\x7E]{1,255})"?$/;

/** JSON with object keys sorted, so the same body sent with its fields in another order matches. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** What makes two requests under one key the same request: the method, the URL and the body. */
export function requestFingerprint(method: string, url: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${url}\n${canonical(body ?? null)}`)
    .digest('base64url');
}

interface Claimed {
  userId: string;
  key: string;
}
const claims = new WeakMap<FastifyRequest, Claimed>();

/**
 * Idempotency-Key (draft-ietf-httpapi-idempotency-key-header) for the contract's operations that declare
 * it: the first request with a key runs and its answer is stored (in `onSend`, before the client gets
 * it); the same key with the same request (method, URL, body) then gets that answer again for 24 h; with
 * another request `422`; while the first is still running `409`. Keys are per user. An answer of 5xx is
 * not kept: the key is released, and a retry runs the request again.
 */
export function idempotencyHooks(
  keys: IdempotencyRepository,
  clock: Clock,
): { preHandler: preHandlerHookHandler; onSend: onSendHookHandler } {
  async function preHandler(request: FastifyRequest, reply: FastifyReply) {
    const header = request.headers['idempotency-key'];
    if (header === undefined) return;
    const key = typeof header === 'string' ? KEY.exec(header)?.[1] : undefined;
    if (key === undefined) {
      throw new AppError(
        'invalid',
        'IDEMPOTENCY_KEY_INVALID',
        'Idempotency-Key must be one string of 1 to 255 visible ASCII characters, such as "8e03978e-40d5-43e8-bc93-6894a57f9324".',
      );
    }
    const userId = signedInUser(request).id;
    const fingerprint = requestFingerprint(request.method, request.url, request.body);
    const claim = await keys.claim(userId, key, fingerprint, new Date(clock()));
    if (claim.state === 'claimed') {
      claims.set(request, { userId, key });
      return;
    }
    if (claim.state === 'answered') {
      const { status, headers, body } = claim.answer;
      return reply.code(status).headers(headers).send(body);
    }
    if (claim.state === 'in_flight') {
      throw new AppError(
        'conflict',
        'IDEMPOTENCY_KEY_IN_FLIGHT',
        `A request with Idempotency-Key ${key} is still being processed; retry after it has been answered.`,
      );
    }
    throw new AppError(
      'unprocessable',
      'IDEMPOTENCY_KEY_REUSED',
      `Idempotency-Key ${key} was used for another request (another URL or body); use a new key for a new request.`,
    );
  }

  async function onSend(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
    const claimed = claims.get(request);
    if (claimed === undefined) return payload;
    claims.delete(request);
    if (reply.statusCode >= 500) {
      await keys.release(claimed.userId, claimed.key);
      return payload;
    }
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const value = reply.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString() : '';
    await keys.answer(claimed.userId, claimed.key, { status: reply.statusCode, headers, body });
    return payload;
  }

  return { preHandler, onSend };
}
