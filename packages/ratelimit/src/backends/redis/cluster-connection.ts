import type { ConnectionOptions } from 'node:tls';
import { Cluster, type ClusterOptions } from 'ioredis';
import type { StoreError } from '../../errors.js';
import {
  type CommandBatch,
  isNoScript,
  newValues,
  readReply,
  type ScriptSpec,
  scriptArgs,
} from './commands.js';
import { GuardedConnector } from './connectors.js';
import { describeTarget, LinkState, type QueuedBatch, type RedisLink, reconnectDelayMs } from './link.js';
import type { RedisInstanceSettings } from './settings.js';

/**
 * One pooled Redis Cluster client (a connection per node), on ioredis, which follows the slot
 * map and MOVED/ASK redirections and reconnects by itself. This wrapper remembers the last socket
 * error so a failed call can report Redis's (or the network's) own error text, and tells the pool
 * when it becomes active.
 */
export class ClusterConnection implements RedisLink {
  private readonly client: Cluster;
  private readonly state: LinkState;

  constructor(
    settings: RedisInstanceSettings,
    tls: ConnectionOptions | undefined,
    onActiveChange: (active: boolean) => void,
  ) {
    this.state = new LinkState(describeTarget(settings), onActiveChange);
    this.client = openClient(settings, tls);
    this.client.on('ready', () => this.state.opened());
    this.client.on('close', () => this.state.lost());
    this.client.on('end', () => this.state.lost());
    // Without an 'error' listener ioredis would throw from an EventEmitter: never crash on a
    // connection failure, remember it for the next caller instead. ioredis also reports its own
    // "gave up on this command" wrappers here; the cause they wrap says more.
    this.client.on('error', (error: Error) => {
      if (!isConnectionLoss(error)) this.state.remember(error, true);
    });
    this.client.on('node error', (error: Error) => {
      if (!isConnectionLoss(error)) this.state.remember(error, false);
    });
  }

  get isActive(): boolean {
    return this.state.isActive;
  }

  /** Commands sent during the first attempt wait in ioredis' offline queue for its outcome. */
  get usable(): boolean {
    return this.state.usable;
  }

  failure(commandError?: unknown): StoreError {
    return this.state.failure(commandError, isConnectionLoss);
  }

  /**
   * Each command on its own, so keys of different slots (and nodes) work in one request;
   * ioredis' auto-pipelining sends the commands of one tick to each node in one write.
   */
  async send(queued: readonly QueuedBatch[]): Promise<void> {
    await Promise.all(
      queued.map(async (item) => {
        try {
          item.resolve(await sendBatch(this.client, item.batch));
        } catch (error) {
          item.reject(this.failure(error));
        }
      }),
    );
  }

  /** Resolves once the connection is active; rejects with its error if it fails first. */
  whenActive(timeoutMs: number): Promise<void> {
    return this.state.whenActive(timeoutMs);
  }

  async close(): Promise<void> {
    this.state.close();
    this.client.disconnect();
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

async function sendBatch(client: Cluster, batch: CommandBatch): Promise<number[]> {
  const { keys, scripts } = batch;
  const replies: Promise<unknown>[] = [];
  const first: number[] = [];
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    first.push(replies.length);
    const spec = scripts?.[i];
    if (spec) {
      replies.push(runScript(client, batch, i, spec));
    } else if (batch.kind === 'get') {
      replies.push(client.get(key));
    } else {
      replies.push(client.incrby(key, batch.addends[i] as number));
      replies.push(client.expire(key, batch.ttls[i] as number));
    }
  }
  const settled = await Promise.all(replies);
  const values: number[] = newValues(batch);
  for (let i = 0; i < keys.length; i++) {
    const reply = settled[first[i] as number];
    readReply(
      batch,
      i,
      reply instanceof Error ? undefined : reply,
      reply instanceof Error ? reply : undefined,
      values,
    );
  }
  return values;
}

/** EVALSHA (or EVAL) on the key's node; a NOSCRIPT reply is returned as an error to mark the key. */
function runScript(client: Cluster, batch: CommandBatch, i: number, spec: ScriptSpec): Promise<unknown> {
  const { script } = spec;
  const key = batch.keys[i] as string;
  const args = scriptArgs(batch, i);
  const reply = batch.evalText
    ? client.eval(script.text, 1, key, ...args)
    : client.evalsha(script.sha1, 1, key, ...args);
  return reply.catch((error: Error) => {
    if (isNoScript(error)) return error;
    throw error;
  });
}

function openClient(settings: RedisInstanceSettings, tls: ConnectionOptions | undefined): Cluster {
  const clusterOptions: ClusterOptions = {
    redisOptions: {
      ...(settings.auth?.username !== undefined ? { username: settings.auth.username } : {}),
      ...(settings.auth ? { password: settings.auth.password } : {}),
      ...(tls ? { tls } : {}),
      connectTimeout: settings.timeoutMs,
      ...(settings.timeoutMs > 0 ? { commandTimeout: settings.timeoutMs } : {}),
      // A command whose connection drops fails at once (the caller gets the error), and is never
      // re-sent after a reconnect: a re-sent INCRBY would count a hit twice.
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      Connector: GuardedConnector,
    },
    clusterRetryStrategy: reconnectDelayMs,
    // Commands are sent one by one; ioredis groups those of one tick per node.
    enableAutoPipelining: true,
    enableReadyCheck: true,
    slotsRefreshTimeout: settings.timeoutMs,
  };
  return new Cluster(
    settings.nodes.map((node) => ({ host: node.host, port: node.port })),
    clusterOptions,
  );
}
