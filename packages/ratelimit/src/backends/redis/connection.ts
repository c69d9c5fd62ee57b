import type { ConnectionOptions } from 'node:tls';
import { Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';
import { StoreError } from '../../errors.js';
import { GuardedConnector, GuardedSentinelConnector } from './connectors.js';
import type { RedisInstanceSettings } from './settings.js';

export type RedisClient = Redis | Cluster;

/** Reconnect delays: doubling from 50 ms, capped at 1 s, forever (the store never gives up). */
export function reconnectDelayMs(attempt: number): number {
  return Math.min(50 * 2 ** Math.max(0, attempt - 1), 1000);
}

/**
 * One pooled Redis connection (for cluster: one cluster client, i.e. a connection per node).
 * ioredis reconnects by itself; this wrapper remembers the last socket error so a failed call can
 * report Redis's (or the network's) own error text, and tells the pool when it becomes active.
 */
export class PooledConnection {
  readonly client: RedisClient;
  private lastError: string | undefined;
  private active = false;
  private everActive = false;
  private closing = false;
  private readonly description: string;

  constructor(
    settings: RedisInstanceSettings,
    tls: ConnectionOptions | undefined,
    private readonly onActiveChange: (active: boolean) => void,
  ) {
    this.client = openClient(settings, tls);
    this.description = describe(settings);
    this.client.on('ready', () => this.setActive(true));
    this.client.on('close', () => this.setActive(false));
    this.client.on('end', () => this.setActive(false));
    // Without an 'error' listener ioredis would throw from an EventEmitter: never crash on a
    // connection failure, remember it for the next caller instead.
    this.client.on('error', (error: Error) => this.remember(error));
    this.client.on('node error', (error: Error) => this.remember(error));
  }

  get isActive(): boolean {
    return this.active;
  }

  /**
   * Whether a command can be sent now: the connection is up, or it is still making its very
   * first attempt (commands then wait in ioredis' offline queue for that attempt's outcome).
   */
  get usable(): boolean {
    if (this.active) return true;
    return !this.everActive && this.lastError === undefined && !this.closing;
  }

  /** The error for a call that cannot use this connection or whose command failed. */
  failure(commandError?: unknown): StoreError {
    const text =
      commandError instanceof Error && !isConnectionLoss(commandError)
        ? commandError.message
        : (this.lastError ?? `connection to redis at ${this.description} was closed`);
    return new StoreError(text, { cause: commandError });
  }

  /** Resolves once the connection is active; rejects with its error if it fails first. */
  whenActive(timeoutMs: number): Promise<void> {
    if (this.active) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const done = (error?: StoreError) => {
        clearTimeout(timer);
        this.client.off('ready', onReady);
        this.client.off('error', onError);
        if (error) reject(error);
        else resolve();
      };
      const onReady = () => done();
      const onError = (error: Error) => done(new StoreError(errorText(error), { cause: error }));
      const timer = setTimeout(
        () => done(new StoreError(`redis connect timed out after ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.client.once('ready', onReady);
      this.client.once('error', onError);
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    this.client.disconnect();
  }

  private remember(error: Error): void {
    // ioredis also reports its own "gave up on this command" wrappers here; keep the cause.
    if (!isConnectionLoss(error)) this.lastError = errorText(error);
  }

  private setActive(active: boolean): void {
    if (active === this.active) return;
    this.active = active;
    if (active) {
      this.everActive = true;
      this.lastError = undefined;
    }
    this.onActiveChange(active);
  }
}

/** ioredis' own wrappers for "the connection went away"; the socket error says more. */
function isConnectionLoss(error: Error): boolean {
  return (
    error.message.startsWith('Reached the max retries per request limit') ||
    error.message === 'Connection is closed.' ||
    error.message.startsWith("Stream isn't writeable")
  );
}

function describe(settings: RedisInstanceSettings): string {
  if (settings.socketPath !== undefined) return settings.socketPath;
  const nodes = settings.nodes.map((node) => `${node.host}:${node.port}`).join(',');
  return settings.type === 'sentinel' ? `${settings.sentinelMasterName} via ${nodes}` : nodes;
}

function errorText(error: Error): string {
  // AggregateError (happy eyeballs) has an empty message; its parts carry the text.
  if (!error.message && error instanceof AggregateError) {
    return error.errors.map((part: Error) => part.message).join('; ');
  }
  return error.message;
}

function commonOptions(settings: RedisInstanceSettings, tls: ConnectionOptions | undefined): RedisOptions {
  return {
    ...(settings.auth?.username !== undefined ? { username: settings.auth.username } : {}),
    ...(settings.auth ? { password: settings.auth.password } : {}),
    ...(tls ? { tls } : {}),
    connectTimeout: settings.timeoutMs,
    ...(settings.timeoutMs > 0 ? { commandTimeout: settings.timeoutMs } : {}),
    retryStrategy: reconnectDelayMs,
    // A command whose connection drops fails at once (the caller gets the error), and is never
    // re-sent after a reconnect: a re-sent INCRBY would count a hit twice.
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    enableReadyCheck: true,
    lazyConnect: false,
    Connector: GuardedConnector,
  };
}

function openClient(settings: RedisInstanceSettings, tls: ConnectionOptions | undefined): RedisClient {
  const options = commonOptions(settings, tls);
  switch (settings.type) {
    case 'single':
      return settings.socketPath !== undefined
        ? new Redis({ ...options, path: settings.socketPath })
        : new Redis({ ...options, host: settings.nodes[0]?.host, port: settings.nodes[0]?.port });
    case 'sentinel':
      return new Redis({
        ...options,
        Connector: GuardedSentinelConnector,
        // ioredis uses `tls` for the master found through the sentinels only with this flag; the
        // sentinels themselves are reached in plain TCP, as radix does in the reference.
        enableTLSForSentinelMode: tls !== undefined,
        sentinels: settings.nodes.map((node) => ({ host: node.host, port: node.port })),
        name: settings.sentinelMasterName as string,
        ...(settings.sentinelAuth?.username !== undefined
          ? { sentinelUsername: settings.sentinelAuth.username }
          : {}),
        ...(settings.sentinelAuth ? { sentinelPassword: settings.sentinelAuth.password } : {}),
        sentinelRetryStrategy: reconnectDelayMs,
        // After a failover the old master comes back as a replica: reconnect through the sentinels.
        reconnectOnError: (error) => error.message.startsWith('READONLY'),
        failoverDetector: true,
      });
    case 'cluster': {
      const clusterOptions: ClusterOptions = {
        redisOptions: options,
        clusterRetryStrategy: reconnectDelayMs,
        // Cluster commands are sent one by one; ioredis groups those of one tick per node.
        enableAutoPipelining: true,
        enableReadyCheck: true,
        slotsRefreshTimeout: settings.timeoutMs,
      };
      return new Cluster(
        settings.nodes.map((node) => ({ host: node.host, port: node.port })),
        clusterOptions,
      );
    }
  }
}
