/**
 * Request timeouts with one timer per dispatcher rather than one per request. Every request gets
 * the same limit, so deadlines fall in the order requests start: the pending ones are kept in that
 * order, and one timer is armed for the earliest. A request that settles just leaves the list. This
 * spares each request with a body Node's Timeout object and its insertion into and removal from
 * Node's timer list. The pending deadlines are a doubly linked list through the records themselves
 * rather than a Set: joining and leaving it are a few field writes, with no hashing and no table
 * that a steady stream of adds and deletes keeps rebuilding.
 *
 * The timer keeps the process alive only for deadlines of requests nothing else holds it for: a
 * request on a connection has an open socket that does (so a server's requests never switch the
 * timer's hold on and off, which took Node's timer bookkeeping on every request), while a
 * `fetch` call made in-process has only this timer to wait for its 503.
 */
export class Deadline {
  readonly at: number;
  readonly expire: () => void;
  previous: Deadline | null = null;
  next: Deadline | null = null;
  /** Whether the timer must keep the process alive for this deadline. */
  readonly holdsProcess: boolean;
  /** In the pending list: not yet settled or expired. */
  pending = true;

  constructor(at: number, expire: () => void, holdsProcess: boolean) {
    this.at = at;
    this.expire = expire;
    this.holdsProcess = holdsProcess;
  }
}

export class Deadlines {
  readonly #limit: number;
  readonly #now: () => number;
  /** The earliest and the latest pending deadline. */
  #first: Deadline | null = null;
  #last: Deadline | null = null;
  #timer: NodeJS.Timeout | undefined;
  /** The deadline the timer was armed for. */
  #armedFor = 0;
  /**
   * Pending deadlines that hold the process. The timer keeps the process alive only while there
   * are some, as each request's own timer did (a process whose requests have all settled must be
   * free to exit).
   */
  #holding = 0;

  /** `now` is a clock in milliseconds (injected by tests). */
  constructor(limit: number, now: () => number = () => performance.now()) {
    this.#limit = limit;
    this.#now = now;
  }

  /**
   * Calls `expire` once the limit has passed, unless `settle` is called first. `holdsProcess`:
   * whether the process must stay alive for it (false when an open connection already does).
   */
  start(expire: () => void, holdsProcess = true): Deadline {
    const now = this.#now();
    const deadline = new Deadline(now + this.#limit, expire, holdsProcess);
    const last = this.#last;
    if (last === null) this.#first = deadline;
    else {
      last.next = deadline;
      deadline.previous = last;
    }
    this.#last = deadline;
    if (holdsProcess && ++this.#holding === 1) this.#timer?.ref();
    if (this.#timer === undefined) this.#arm(deadline.at, now);
    return deadline;
  }

  settle(deadline: Deadline): void {
    if (deadline.pending) this.#unlink(deadline);
  }

  #unlink(deadline: Deadline): void {
    deadline.pending = false;
    if (deadline.holdsProcess && --this.#holding === 0) this.#timer?.unref();
    const { previous, next } = deadline;
    if (previous === null) this.#first = next;
    else previous.next = next;
    if (next === null) this.#last = previous;
    else next.previous = previous;
    deadline.previous = null;
    deadline.next = null;
  }

  #arm(at: number, now: number): void {
    this.#armedFor = at;
    this.#timer = setTimeout(() => this.#fire(), Math.max(1, Math.ceil(at - now)));
    if (this.#holding === 0) this.#timer.unref();
  }

  #fire(): void {
    this.#timer = undefined;
    // The time the timer was armed for has passed, whatever the clock says (mocked timers move
    // without it).
    const now = Math.max(this.#now(), this.#armedFor);
    for (let deadline = this.#first; deadline !== null; deadline = this.#first) {
      if (deadline.at > now) {
        this.#arm(deadline.at, now);
        return;
      }
      this.#unlink(deadline);
      deadline.expire();
    }
  }
}
