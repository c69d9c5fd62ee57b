import type { ConnectionOptions } from 'node:tls';
import type { Cluster, Redis } from 'ioredis';
import { StoreError } from '../../errors.js';
import { appendToPipeline, type CommandBatch, commandCount, readResults, toCount } from './commands.js';
import { PooledConnection } from './connection.js';
import { ConnectionPool, defaultOverflowBuffer } from './pool.js';
import type { RedisInstanceSettings } from './settings.js';

/** Node timers fire after 1 ms at the earliest; shorter windows flush at the end of the loop turn. */
const MIN_TIMER_WINDOW_MS = 1;

interface QueuedBatch {
  readonly batch: CommandBatch;
  resolve(values: number[]): void;
  reject(error: Error): void;
}

/**
 * One Redis deployment (the main one or the per-second one) behind a pool.
 * Explicit pipelining (the default): each call leases a connection and sends its commands as one
 * pipeline, one round trip. Implicit pipelining (REDIS_PIPELINE_WINDOW / _LIMIT): calls are queued
 * and flushed together every window or once the limit of commands is queued, so the commands of
 * concurrent requests share one write and one connection lease.
 */
export class RedisInstance {
  private readonly pool: ConnectionPool<PooledConnection>;
  private readonly implicit: boolean;
  private queue: QueuedBatch[] = [];
  private queuedCommands = 0;
  private flushTimer: NodeJS.Timeout | undefined;
  private flushScheduled = false;
  private activeConnections = 0;

  constructor(
    readonly settings: RedisInstanceSettings,
    tls: ConnectionOptions | undefined,
    private readonly onActiveCountChange: () => void,
  ) {
    this.implicit = settings.pipelineWindowMs > 0 || settings.pipelineLimit > 0;
    this.pool = new ConnectionPool(
      () =>
        new PooledConnection(settings, tls, (active) => {
          this.activeConnections += active ? 1 : -1;
          this.onActiveCountChange();
        }),
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

  /** Runs the batch; resolves to one counter value per key. */
  run(batch: CommandBatch): Promise<number[]> {
    if (!this.implicit) return this.runExplicit(batch);
    return new Promise((resolve, reject) => {
      this.queue.push({ batch, resolve, reject });
      this.queuedCommands += commandCount(batch);
      this.scheduleFlush();
    });
  }

  async close(): Promise<void> {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flush();
    await this.pool.close();
  }

  private async runExplicit(batch: CommandBatch): Promise<number[]> {
    const leased = this.pool.acquire();
    const connection = leased instanceof PooledConnection ? leased : await leased;
    try {
      if (!connection.usable) throw connection.failure();
      const pipeline = (connection.client as Redis).pipeline();
      appendToPipeline(pipeline, batch);
      const results = await pipeline.exec();
      if (!results) throw connection.failure();
      return readResults(batch, results, 0);
    } catch (error) {
      throw error instanceof StoreError ? error : connection.failure(error);
    } finally {
      this.pool.release(connection);
    }
  }

  private scheduleFlush(): void {
    const { pipelineLimit, pipelineWindowMs } = this.settings;
    if (pipelineLimit > 0 && this.queuedCommands >= pipelineLimit) {
      if (this.flushTimer) clearTimeout(this.flushTimer);
      this.flushTimer = undefined;
      this.flush();
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
      // `setTimeout` of 150 µs fires after 1 ms or more): flush whatever this turn of the event
      // loop queued, which is at most the window in practice and never later.
      this.flushScheduled = true;
      setImmediate(() => {
        this.flushScheduled = false;
        this.flush();
      });
    }
  }

  private flush(): void {
    if (this.queue.length === 0) return;
    const queued = this.queue;
    this.queue = [];
    this.queuedCommands = 0;
    void this.sendQueued(queued);
  }

  private async sendQueued(queued: QueuedBatch[]): Promise<void> {
    let connection: PooledConnection;
    try {
      const leased = this.pool.acquire();
      connection = leased instanceof PooledConnection ? leased : await leased;
    } catch (error) {
      for (const item of queued) item.reject(error as Error);
      return;
    }
    try {
      if (!connection.usable) throw connection.failure();
      if (this.settings.type === 'cluster') await sendEach(connection, queued);
      else await sendAsOnePipeline(connection, queued);
    } catch (error) {
      const failure = error instanceof StoreError ? error : connection.failure(error);
      for (const item of queued) item.reject(failure);
    } finally {
      this.pool.release(connection);
    }
  }
}

/** Single and sentinel: every queued call's commands in one pipeline. */
async function sendAsOnePipeline(connection: PooledConnection, queued: QueuedBatch[]): Promise<void> {
  const pipeline = (connection.client as Redis).pipeline();
  for (const item of queued) appendToPipeline(pipeline, item.batch);
  const results = await pipeline.exec();
  if (!results) throw connection.failure();
  let offset = 0;
  for (const item of queued) {
    try {
      item.resolve(readResults(item.batch, results, offset));
    } catch (error) {
      item.reject(connection.failure(error));
    }
    offset += commandCount(item.batch);
  }
}

/**
 * Cluster: each command on its own, so keys of different slots (and nodes) work in one request;
 * ioredis' auto-pipelining sends the commands of one tick to each node in one write.
 */
async function sendEach(connection: PooledConnection, queued: QueuedBatch[]): Promise<void> {
  const client = connection.client as Cluster;
  await Promise.all(
    queued.map(async (item) => {
      try {
        item.resolve(await sendBatchToCluster(client, item.batch));
      } catch (error) {
        item.reject(connection.failure(error));
      }
    }),
  );
}

async function sendBatchToCluster(client: Cluster, batch: CommandBatch): Promise<number[]> {
  const { keys } = batch;
  const replies: Promise<unknown>[] = [];
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    if (batch.kind === 'get') {
      replies.push(client.get(key));
    } else {
      replies.push(client.incrby(key, batch.addends[i] as number));
      replies.push(client.expire(key, batch.ttls[i] as number));
    }
  }
  const values = await Promise.all(replies);
  const step = batch.kind === 'increment' ? 2 : 1;
  return keys.map((_, i) => toCount(values[i * step]));
}
