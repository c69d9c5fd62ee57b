import type { ConnectionOptions } from 'node:tls';
import { Cluster, type ClusterOptions } from 'ioredis';
import { StoreError } from '../../errors.js';
import { type CommandBatch, isNoScript, readReply, type ScriptCall } from './commands.js';
import { GuardedConnector } from './connectors.js';
import { describeTarget, errorText, type QueuedBatch, type RedisLink, reconnectDelayMs } from './link.js';
import type { RedisInstanceSettings } from './settings.js';

/**
 * One pooled Redis Cluster client (a connection per node), on ioredis, which follows the slot
 * map and MOVED/ASK redirections and reconnects by itself. This wrapper remembers the last socket
 * error so a failed call can report Redis's (or the network's) own error text, and tells the pool
 * when it becomes active.
 */
export class ClusterConnection implements RedisLink {
  private readonly client: Cluster;
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
    this.description = describeTarget(settings);
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

  /** Commands sent during the first attempt wait in ioredis' offline queue for its outcome. */
  get usable(): boolean {
    if (this.active) return true;
    return !this.everActive && this.lastError === undefined && !this.closing;
  }

  failure(commandError?: unknown): StoreError {
    if (commandError instanceof StoreError) return commandError;
    const text =
      commandError instanceof Error && !isConnectionLoss(commandError)
        ? commandError.message
        : (this.lastError ?? `connection to redis at ${this.description} was closed`);
    return new StoreError(text, { cause: commandError });
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

async function sendBatch(client: Cluster, batch: CommandBatch): Promise<number[]> {
  const { keys, scripts } = batch;
  const replies: Promise<unknown>[] = [];
  const first: number[] = [];
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    first.push(replies.length);
    const call = scripts?.[i];
    if (call) {
      replies.push(runScript(client, key, call, batch.evalText === true));
    } else if (batch.kind === 'get') {
      replies.push(client.get(key));
    } else {
      replies.push(client.incrby(key, batch.addends[i] as number));
      replies.push(client.expire(key, batch.ttls[i] as number));
    }
  }
  const settled = await Promise.all(replies);
  const values: number[] = new Array<number>(keys.length);
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
function runScript(client: Cluster, key: string, call: ScriptCall, evalText: boolean): Promise<unknown> {
  const { script, args } = call;
  const reply = evalText
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
