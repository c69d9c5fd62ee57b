import { StoreError } from '../../errors.js';
import type { CommandBatch } from './commands.js';
import type { Poolable } from './pool.js';
import type { RedisInstanceSettings } from './settings.js';

/** One request's commands waiting for their replies. */
export interface QueuedBatch {
  readonly batch: CommandBatch;
  /** True once the call was answered or ran out of time (REDIS_TIMEOUT): it is not sent. */
  readonly settled?: boolean;
  resolve(values: number[]): void;
  reject(error: Error): void;
}

/**
 * What a Redis instance needs from one pooled connection, whichever client drives it: the lean
 * RESP connection for a single Redis and for sentinel, ioredis for cluster.
 */
export interface RedisLink extends Poolable {
  /**
   * Whether a command can be sent now: the connection is up, or it is still making its very first
   * attempt (commands then wait for that attempt's outcome).
   */
  readonly usable: boolean;
  /** The error for a call that cannot use this connection or whose command failed. */
  failure(commandError?: unknown): StoreError;
  /**
   * Sends the commands of every batch, in order, as one pipeline (one write, one round trip).
   * Settles each batch on its own; the returned promise resolves once all are settled and never
   * rejects.
   */
  send(queued: readonly QueuedBatch[]): Promise<void>;
}

/** Reconnect delays: doubling from 50 ms, capped at 1 s, forever (the store never gives up). */
export function reconnectDelayMs(attempt: number): number {
  return Math.min(50 * 2 ** Math.max(0, attempt - 1), 1000);
}

/** Where the instance's Redis is, for error texts. */
export function describeTarget(settings: RedisInstanceSettings): string {
  if (settings.socketPath !== undefined) return settings.socketPath;
  const nodes = settings.nodes.map((node) => `${node.host}:${node.port}`).join(',');
  return settings.type === 'sentinel' ? `${settings.sentinelMasterName} via ${nodes}` : nodes;
}

/** An error's text; AggregateError (happy eyeballs) has an empty message and its parts carry it. */
export function errorText(error: Error): string {
  if (!error.message && error instanceof AggregateError) {
    return error.errors.map((part: Error) => part.message).join('; ');
  }
  return error.message;
}

/**
 * The connection state both Redis links keep, whichever client drives the socket: whether the
 * connection is up, whether it ever was, whether it is closing, the last connection error (the
 * text a failed call reports) and the callers waiting for it to come up.
 */
export class LinkState {
  private up = false;
  private everUp = false;
  private closing = false;
  private lastError: string | undefined;
  private waiters: ((error?: StoreError) => void)[] = [];

  constructor(
    private readonly description: string,
    private readonly onActiveChange: (active: boolean) => void,
  ) {}

  get isActive(): boolean {
    return this.up;
  }

  /** Up, or still making its very first attempt (commands then wait for that attempt's outcome). */
  get usable(): boolean {
    if (this.up) return true;
    return !this.everUp && this.lastError === undefined && !this.closing;
  }

  /** A failed call's error: the command's own error when it has one, else the connection's. */
  failure(commandError?: unknown, isConnectionLoss: (error: Error) => boolean = () => false): StoreError {
    if (commandError instanceof StoreError) return commandError;
    const text =
      commandError instanceof Error && !isConnectionLoss(commandError)
        ? commandError.message
        : (this.lastError ?? `connection to redis at ${this.description} was closed`);
    return new StoreError(text, { cause: commandError });
  }

  /** The connection is up: the last error is forgotten and the waiters are released. */
  opened(): void {
    this.lastError = undefined;
    this.everUp = true;
    const wasUp = this.up;
    this.up = true;
    for (const waiter of this.waiters.slice()) waiter();
    if (!wasUp) this.onActiveChange(true);
  }

  /** The connection went down (it reconnects by itself unless closing). */
  lost(): void {
    if (!this.up) return;
    this.up = false;
    this.onActiveChange(false);
  }

  /** Keeps a connection error's text for the next failed call; with `waiters`, fails those waiting too. */
  remember(error: Error | string, failWaiters: boolean): void {
    this.lastError = typeof error === 'string' ? error : errorText(error);
    if (!failWaiters) return;
    const failure = new StoreError(this.lastError, { cause: error });
    for (const waiter of this.waiters.slice()) waiter(failure);
  }

  close(): void {
    this.closing = true;
  }

  get isClosing(): boolean {
    return this.closing;
  }

  /** Resolves once the connection is up; rejects with its error if one comes first, or on timeout. */
  whenActive(timeoutMs: number): Promise<void> {
    if (this.up) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => settle(new StoreError(`redis connect timed out after ${timeoutMs} ms`)),
        timeoutMs,
      );
      const settle = (error?: StoreError) => {
        clearTimeout(timer);
        this.waiters = this.waiters.filter((waiter) => waiter !== settle);
        if (error) reject(error);
        else resolve();
      };
      this.waiters.push(settle);
    });
  }
}
