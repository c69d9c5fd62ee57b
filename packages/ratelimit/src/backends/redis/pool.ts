import { StoreError } from '../../errors.js';
import type { PoolOnEmptyBehavior } from './settings.js';

/** What the pool needs from a connection. */
export interface Poolable {
  readonly isActive: boolean;
  whenActive(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

export interface PoolOptions {
  readonly size: number;
  readonly onEmpty: PoolOnEmptyBehavior;
  readonly waitMs: number;
  /** How long an overflow connection (CREATE) may take to connect. */
  readonly connectTimeoutMs: number;
  /** Overflow connections kept for the next burst, and how often one of them is closed. */
  readonly overflowBuffer: { readonly size: number; readonly drainIntervalMs: number };
}

/** radix v3's default overflow buffer: PoolOnFullBuffer((size / 3) + 1, 1 * time.Second). */
export function defaultOverflowBuffer(poolSize: number): PoolOptions['overflowBuffer'] {
  return { size: Math.floor(poolSize / 3) + 1, drainIntervalMs: 1000 };
}

interface Waiter<C> {
  resolve(connection: C): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout | undefined;
}

/** radix's text for ERROR on an empty pool, so callers see the reference's message. */
export const POOL_EMPTY_MESSAGE = 'connection pool is empty';

/**
 * A fixed set of connections, each lent to one caller at a time, like radix's pool:
 * REDIS_POOL_SIZE connections, and when all are lent out REDIS_POOL_ON_EMPTY_BEHAVIOR decides:
 * WAIT queues the caller until one comes back; ERROR fails after the wait duration; CREATE opens
 * an extra connection after the wait duration. Like radix, an extra connection that comes back to a
 * full pool is kept in a small overflow buffer, lent before any new one is opened, and the buffer
 * is drained one connection per interval; so a sustained burst does not reconnect over and over.
 */
export class ConnectionPool<C extends Poolable> {
  private readonly idle: C[] = [];
  private readonly waiters: Waiter<C>[] = [];
  private readonly members = new Set<C>();
  private readonly overflowIdle: C[] = [];
  private drainTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly create: () => C,
    private readonly options: PoolOptions,
  ) {
    for (let i = 0; i < options.size; i++) {
      const connection = create();
      this.members.add(connection);
      this.idle.push(connection);
    }
  }

  /** Every pooled connection (not the overflow ones), for health accounting. */
  get connections(): Iterable<C> {
    return this.members;
  }

  /** Lends a connection: synchronously when one is idle, so the hot path allocates no promise. */
  acquire(): C | Promise<C> {
    if (this.closed) return Promise.reject(new StoreError('redis store is closed'));
    const connection = this.takeIdle();
    if (connection) return connection;
    return new Promise<C>((resolve, reject) => {
      const waiter: Waiter<C> = { resolve, reject, timer: undefined };
      if (this.options.onEmpty !== 'WAIT') {
        waiter.timer = setTimeout(() => this.onWaitExpired(waiter), this.options.waitMs);
      }
      this.waiters.push(waiter);
    });
  }

  /** Takes a connection back; hands it to the longest waiting caller first. */
  release(connection: C): void {
    const waiter = this.waiters.shift();
    if (waiter) {
      if (waiter.timer) clearTimeout(waiter.timer);
      waiter.resolve(connection);
      return;
    }
    if (this.closed) void connection.close();
    else if (this.members.has(connection)) this.idle.push(connection);
    else this.keepOverflow(connection);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.waiters.splice(0)) {
      if (waiter.timer) clearTimeout(waiter.timer);
      waiter.reject(new StoreError('redis store is closed'));
    }
    this.idle.length = 0;
    this.stopDrain();
    const overflow = this.overflowIdle.splice(0);
    await Promise.all([...this.members, ...overflow].map((connection) => connection.close()));
  }

  /** Prefers an active idle connection, so one reconnecting member does not fail a call. */
  private takeIdle(): C | undefined {
    const idle = this.idle;
    for (let i = idle.length - 1; i >= 0; i--) {
      const candidate = idle[i] as C;
      if (candidate.isActive) {
        idle[i] = idle[idle.length - 1] as C;
        idle.pop();
        return candidate;
      }
    }
    // A kept overflow connection before a reconnecting member.
    return this.overflowIdle.pop() ?? idle.pop();
  }

  private keepOverflow(connection: C): void {
    const { size, drainIntervalMs } = this.options.overflowBuffer;
    if (this.overflowIdle.length >= size || !connection.isActive) {
      void connection.close();
      return;
    }
    this.overflowIdle.push(connection);
    if (this.drainTimer) return;
    this.drainTimer = setInterval(() => {
      void this.overflowIdle.shift()?.close();
      if (this.overflowIdle.length === 0) this.stopDrain();
    }, drainIntervalMs);
    // Draining never keeps the process alive.
    this.drainTimer.unref();
  }

  private stopDrain(): void {
    if (this.drainTimer) clearInterval(this.drainTimer);
    this.drainTimer = undefined;
  }

  private onWaitExpired(waiter: Waiter<C>): void {
    const index = this.waiters.indexOf(waiter);
    if (index < 0) return;
    this.waiters.splice(index, 1);
    if (this.options.onEmpty === 'ERROR') {
      waiter.reject(new StoreError(POOL_EMPTY_MESSAGE));
      return;
    }
    const overflow = this.create();
    overflow.whenActive(this.options.connectTimeoutMs).then(
      () => waiter.resolve(overflow),
      (error: Error) => {
        void overflow.close();
        waiter.reject(error);
      },
    );
  }
}
