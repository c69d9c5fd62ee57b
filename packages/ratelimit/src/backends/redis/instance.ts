import type { ConnectionOptions } from 'node:tls';
import { StoreError } from '../../errors.js';
import { CallDeadlines } from './call-deadlines.js';
import { ClusterConnection } from './cluster-connection.js';
import { type CommandBatch, commandCount } from './commands.js';
import type { QueuedBatch, RedisLink } from './link.js';
import { ConnectionPool, defaultOverflowBuffer } from './pool.js';
import { RespConnection } from './resp-connection.js';
import type { RedisInstanceSettings } from './settings.js';

/** Node timers fire after 1 ms at the earliest; shorter windows flush at the end of the loop turn. */
const MIN_TIMER_WINDOW_MS = 1;

/**
 * One Redis deployment (the main one or the per-second one) behind a pool. A single Redis and a
 * sentinel-managed master are reached through the lean RESP connection; a cluster through ioredis.
 * Explicit pipelining (the default): each call leases a connection and sends its commands as one
 * pipeline, one round trip. Implicit pipelining (REDIS_PIPELINE_WINDOW / _LIMIT): calls are queued
 * and flushed together every window or once the limit of commands is queued, so the commands of
 * concurrent requests share one write and one connection lease.
 */
export class RedisInstance {
  private readonly pool: ConnectionPool<RedisLink>;
  private readonly implicit: boolean;
  private queue: QueuedBatch[] = [];
  private queuedCommands = 0;
  private flushTimer: NodeJS.Timeout | undefined;
  private flushScheduled = false;
  private activeConnections = 0;
  /** REDIS_TIMEOUT from each call's start; absent when the timeout is 0 (none). */
  private readonly deadlines: CallDeadlines | undefined;

  constructor(
    readonly settings: RedisInstanceSettings,
    tls: ConnectionOptions | undefined,
    private readonly onActiveCountChange: () => void,
  ) {
    this.implicit = settings.pipelineWindowMs > 0 || settings.pipelineLimit > 0;
    this.deadlines = settings.timeoutMs > 0 ? new CallDeadlines(settings.timeoutMs) : undefined;
    const onActiveChange = (active: boolean) => {
      this.activeConnections += active ? 1 : -1;
      this.onActiveCountChange();
    };
    this.pool = new ConnectionPool<RedisLink>(
      () =>
        settings.type === 'cluster'
          ? new ClusterConnection(settings, tls, onActiveChange)
          : new RespConnection(settings, tls, onActiveChange),
      {
        size: settings.poolSize,
        onEmpty: settings.poolOnEmptyBehavior,
        waitMs: settings.poolOnEmptyWaitMs,
        connectTimeoutMs: settings.timeoutMs || 10_000,
        overflowBuffer: defaultOverflowBuffer(settings.poolSize),
      },
    );
  }

  /** Connections currently up (pooled and overflow). */
  get activeConnectionCount(): number {
    return this.activeConnections;
  }

  /**
   * Runs the batch; resolves to one counter value per key. With REDIS_TIMEOUT the call fails at
   * the latest that long after it was made, whatever it waited on.
   */
  run(batch: CommandBatch): Promise<number[]> {
    return new Promise((resolve, reject) => this.call(batch, resolve, reject));
  }

  /** `run` with callbacks, for a caller that settles a promise of its own (one per request). */
  call(batch: CommandBatch, resolve: (values: number[]) => void, reject: (error: Error) => void): void {
    const deadlines = this.deadlines;
    if (!deadlines) {
      if (this.implicit) this.enqueue({ batch, resolve, reject });
      else this.runExplicit(batch).then(resolve, reject);
      return;
    }
    const call = deadlines.start(batch, resolve, reject);
    if (this.implicit) this.enqueue(call);
    else void this.sendQueued([call]);
  }

  async close(): Promise<void> {
    this.flushNow();
    this.deadlines?.failAll(new StoreError('redis store is closed'));
    await this.pool.close();
  }

  private async runExplicit(batch: CommandBatch): Promise<number[]> {
    const leased = this.pool.acquire();
    const connection = leased instanceof Promise ? await leased : leased;
    let values: number[] = [];
    let failure: Error | undefined;
    try {
      if (!connection.usable) throw connection.failure();
      await connection.send([
        {
          batch,
          resolve: (counts) => {
            values = counts;
          },
          reject: (error) => {
            failure = error;
          },
        },
      ]);
    } finally {
      this.pool.release(connection);
    }
    if (failure) throw failure;
    return values;
  }

  private enqueue(item: QueuedBatch): void {
    const { pipelineLimit, pipelineWindowMs } = this.settings;
    this.queue.push(item);
    this.queuedCommands += commandCount(item.batch);
    if (pipelineLimit > 0 && this.queuedCommands >= pipelineLimit) {
      this.flushNow();
      return;
    }
    if (this.flushTimer || this.flushScheduled) return;
    if (pipelineWindowMs >= MIN_TIMER_WINDOW_MS) {
      this.flushTimer = setTimeout(() => {
        this.flushTimer = undefined;
        this.flush();
      }, pipelineWindowMs);
    } else {
      // A limit without a window, or a window shorter than Node's 1 ms timer resolution (a
      // `setTimeout` of 150 µs fires after 1 ms or more): flush at the end of this turn of the
      // event loop. Not earlier when a long turn outlasts the window: every write wakes Redis on
      // its core, and on the 2-core benchmark machine the extra writes of a turn split by the
      // window cost more server CPU than Redis starting early saved (README, Benchmark).
      this.flushScheduled = true;
      setImmediate(() => {
        this.flushScheduled = false;
        this.flush();
      });
    }
  }

  private flushNow(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.flush();
  }

  private flush(): void {
    if (this.queue.length === 0) return;
    const queued = this.queue;
    this.queue = [];
    this.queuedCommands = 0;
    void this.sendQueued(queued);
  }

  private async sendQueued(waiting: QueuedBatch[]): Promise<void> {
    let connection: RedisLink;
    try {
      const leased = this.pool.acquire();
      connection = leased instanceof Promise ? await leased : leased;
    } catch (error) {
      for (const item of waiting) item.reject(error as Error);
      return;
    }
    // Calls that ran out of time while waiting for the connection are not sent.
    const queued = waiting.some((item) => item.settled) ? waiting.filter((item) => !item.settled) : waiting;
    try {
      if (queued.length === 0) return;
      if (!connection.usable) {
        const failure = connection.failure();
        for (const item of queued) item.reject(failure);
        return;
      }
      await connection.send(queued);
    } finally {
      this.pool.release(connection);
    }
  }
}
