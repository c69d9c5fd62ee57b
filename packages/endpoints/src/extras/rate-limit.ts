import type { Controller } from '../controller.js';
import { CallError, isCallError } from '../errors.js';
import { ControllerDecorator, type Decorator } from './decorate.js';

/** Where request counts live; the default keeps them in memory, per process. */
export interface RateLimitStore {
  /**
   * Counts one request for `key` at `now` (ms). Returns 0 when it is allowed, else how many whole
   * seconds the client should wait.
   */
  hit(key: string, limit: number, ttlSeconds: number, now: number): number | Promise<number>;
}

/**
 * The reference's in-memory counts: a key may make `limit` requests; once over, it waits until
 * `ttl` seconds have passed since its last allowed request, then counting starts over. At most
 * `maxKeys` keys are kept, the least recently allowed dropped first.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly #maxKeys: number;
  readonly #calls = new Map<string, { count: number; at: number }>();

  constructor(maxKeys = 5000) {
    this.#maxKeys = maxKeys;
  }

  hit(key: string, limit: number, ttlSeconds: number, now: number): number {
    const previous = this.#calls.get(key);
    let count = 1;
    if (previous) {
      count = previous.count + 1;
      const elapsed = (now - previous.at) / 1000;
      if (count > limit) {
        if (elapsed < ttlSeconds) return ttlSeconds - Math.floor(elapsed);
        count = 1;
      }
    }
    this.#calls.delete(key);
    this.#calls.set(key, { count, at: now });
    if (this.#calls.size > this.#maxKeys) this.#calls.delete(this.#calls.keys().next().value as string);
    return 0;
  }
}

export interface RateLimitOptions {
  /** Requests allowed per key before it must wait. */
  limit: number;
  /** Seconds a key waits once over the limit, counted from its last allowed request. */
  ttl: number;
  /** The key of a request (an address, a user, a token); an empty key is not limited. */
  key: (controller: Controller) => string | undefined | Promise<string | undefined>;
  /** Where counts live (default: a MemoryRateLimitStore per decorator). */
  store?: RateLimitStore;
  /** The clock, in ms (default `Date.now`); tests pass their own. */
  now?: () => number;
}

class RateLimit extends ControllerDecorator {
  readonly #options: RateLimitOptions;
  readonly #store: RateLimitStore;

  constructor(options: RateLimitOptions) {
    super();
    if (!Number.isInteger(options.limit) || options.limit < 1 || !(options.ttl > 0)) {
      throw new RangeError(
        `rateLimit needs a whole limit ≥ 1 and a ttl > 0 seconds, got ${options.limit} and ${options.ttl}`,
      );
    }
    this.#options = options;
    this.#store = options.store ?? new MemoryRateLimitStore();
  }

  override get name(): string {
    return 'rateLimit';
  }

  async before(controller: Controller): Promise<void> {
    const { limit, ttl, key, now = Date.now } = this.#options;
    const id = await key(controller);
    if (!id) return;
    const wait = await this.#store.hit(id, limit, ttl, now());
    if (wait > 0) throw new Error(`Please wait ${wait} seconds to make a request`);
  }

  refuse(_controller: Controller, error: unknown): never {
    if (isCallError(error)) throw error;
    throw new CallError(429, error instanceof Error ? error.message : String(error));
  }
}

/**
 * Limits how often one key may call the handler (the reference's RateLimitDecorator): over the
 * limit, 429 `"Please wait <n> seconds to make a request"`. Checked before the arguments are bound.
 * `@rateLimit({ limit: 10, ttl: 60, key: (c) => c.request.ipAddress })`.
 */
export function rateLimit(options: RateLimitOptions): Decorator {
  return new RateLimit(options).decorator({ statuses: [429] });
}
