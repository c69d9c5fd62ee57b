/**
 * Request timeouts with one timer per dispatcher rather than one per request. Every request gets
 * the same limit, so deadlines fall in the order requests start: the pending ones are kept in that
 * order, and one timer is armed for the earliest. A request that settles just leaves the set. This
 * spares each request with a body Node's Timeout object and its insertion into and removal from
 * Node's timer list.
 */
export interface Deadline {
  readonly at: number;
  readonly expire: () => void;
}

export class Deadlines {
  readonly #limit: number;
  readonly #now: () => number;
  /** Pending deadlines in insertion order, which is deadline order. */
  readonly #pending = new Set<Deadline>();
  #timer: NodeJS.Timeout | undefined;
  /** The deadline the timer was armed for. */
  #armedFor = 0;
  /**
   * Whether the timer keeps the process alive: only while a request is pending, as each request's
   * own timer did (a process whose requests have all settled must be free to exit).
   */
  #refed = false;

  /** `now` is a clock in milliseconds (injected by tests). */
  constructor(limit: number, now: () => number = () => performance.now()) {
    this.#limit = limit;
    this.#now = now;
  }

  /** Calls `expire` once the limit has passed, unless `settle` is called first. */
  start(expire: () => void): Deadline {
    const now = this.#now();
    const deadline = { at: now + this.#limit, expire };
    this.#pending.add(deadline);
    if (this.#timer === undefined) {
      this.#arm(deadline.at, now);
    } else if (!this.#refed) {
      this.#timer.ref();
      this.#refed = true;
    }
    return deadline;
  }

  settle(deadline: Deadline): void {
    this.#pending.delete(deadline);
    if (this.#pending.size === 0 && this.#refed) {
      this.#timer?.unref();
      this.#refed = false;
    }
  }

  #arm(at: number, now: number): void {
    this.#armedFor = at;
    this.#timer = setTimeout(() => this.#fire(), Math.max(1, Math.ceil(at - now)));
    this.#refed = true;
  }

  #fire(): void {
    this.#timer = undefined;
    this.#refed = false;
    // The time the timer was armed for has passed, whatever the clock says (mocked timers move
    // without it).
    const now = Math.max(this.#now(), this.#armedFor);
    for (const deadline of this.#pending) {
      if (deadline.at > now) {
        this.#arm(deadline.at, now);
        return;
      }
      this.#pending.delete(deadline);
      deadline.expire();
    }
  }
}
