import type { StoreError } from '../../errors.js';
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
