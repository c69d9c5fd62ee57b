import { performance } from 'node:perf_hooks';
import { StoreError } from '../../errors.js';
import type { CommandBatch } from './commands.js';
import type { QueuedBatch } from './link.js';

/** Settled calls kept at the queue's head before it is compacted. */
const COMPACT_AFTER = 1024;

/**
 * A call to a Redis instance, settled by whichever comes first: its replies, or its deadline.
 * Replies that arrive after the deadline are dropped.
 */
export class DeadlineCall implements QueuedBatch {
  settled = false;

  constructor(
    readonly batch: CommandBatch,
    readonly startedAt: number,
    private readonly onResolve: (values: number[]) => void,
    private readonly onReject: (error: Error) => void,
    private readonly onSettled: () => void,
  ) {}

  resolve(values: number[]): void {
    if (this.settled) return;
    this.settled = true;
    this.onResolve(values);
    this.onSettled();
  }

  reject(error: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.onReject(error);
    this.onSettled();
  }
}

/**
 * Bounds every call to one Redis instance by REDIS_TIMEOUT from the moment it is made, whatever
 * it waits on: a pooled connection, an extra connection being opened, or replies. The
 * connections' own timers bound each of these steps, but in turn, so a call that waited for a
 * connection and then for replies took up to twice the timeout or more (7 s with 3 s).
 *
 * One timer watches the oldest unsettled call (calls are made in order, so its deadline is the
 * nearest), as the connections do for their replies: no timer per call.
 */
export class CallDeadlines {
  private calls: DeadlineCall[] = [];
  private head = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly onSettled = () => this.dropSettledHead();

  constructor(private readonly timeoutMs: number) {}

  /** A call that settles through `resolve` / `reject` at the latest timeoutMs from now. */
  start(
    batch: CommandBatch,
    resolve: (values: number[]) => void,
    reject: (error: Error) => void,
  ): DeadlineCall {
    const call = new DeadlineCall(batch, performance.now(), resolve, reject, this.onSettled);
    this.calls.push(call);
    if (!this.timer) this.arm(this.timeoutMs);
    return call;
  }

  /** Fails every unsettled call now (the instance is closing). */
  failAll(error: Error): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const calls = this.calls.slice(this.head);
    this.calls = [];
    this.head = 0;
    for (const call of calls) call.reject(error);
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => this.expire(), ms);
    this.timer.unref();
  }

  private expire(): void {
    this.timer = undefined;
    const now = performance.now();
    const failure = new StoreError(`redis command timed out after ${this.timeoutMs} ms`);
    while (this.head < this.calls.length) {
      const call = this.calls[this.head] as DeadlineCall;
      if (!call.settled) {
        const left = call.startedAt + this.timeoutMs - now;
        if (left > 0) {
          this.compact();
          this.arm(left);
          return;
        }
        // Rejecting advances the head through onSettled.
        call.reject(failure);
        continue;
      }
      this.head++;
    }
    this.compact();
  }

  private dropSettledHead(): void {
    while (this.head < this.calls.length && (this.calls[this.head] as DeadlineCall).settled) this.head++;
    this.compact();
  }

  private compact(): void {
    if (this.head === this.calls.length) {
      this.calls = [];
      this.head = 0;
    } else if (this.head >= COMPACT_AFTER && this.head * 2 >= this.calls.length) {
      this.calls = this.calls.slice(this.head);
      this.head = 0;
    }
  }
}
