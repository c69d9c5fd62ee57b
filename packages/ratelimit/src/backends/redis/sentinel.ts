import { createConnection } from 'node:net';
import RedisParser from 'redis-parser';
import { StoreError } from '../../errors.js';
import { encodeCommand } from './commands.js';
import { errorText } from './link.js';
import type { HostPort, RedisInstanceSettings } from './settings.js';

/** How long one sentinel may take to answer when REDIS_TIMEOUT is 0 (no timeout). */
const DEFAULT_SENTINEL_TIMEOUT_MS = 2000;

/**
 * Asks the sentinels, one after the other, where the master named in the settings is
 * (`SENTINEL get-master-addr-by-name`), with REDIS_SENTINEL_AUTH when set. Resolves with the
 * first answer; rejects with a StoreError that carries the last sentinel's error when none knows.
 */
export async function askSentinelsForMaster(settings: RedisInstanceSettings): Promise<HostPort> {
  const name = settings.sentinelMasterName as string;
  const timeoutMs = settings.timeoutMs > 0 ? settings.timeoutMs : DEFAULT_SENTINEL_TIMEOUT_MS;
  const commands: string[][] = [];
  const auth = settings.sentinelAuth;
  if (auth) {
    commands.push(
      auth.username !== undefined ? ['AUTH', auth.username, auth.password] : ['AUTH', auth.password],
    );
  }
  commands.push(['SENTINEL', 'get-master-addr-by-name', name]);
  let lastError = 'no sentinel configured';
  for (const sentinel of settings.nodes) {
    try {
      const replies = await exchange(sentinel, commands, timeoutMs);
      const address = replies.at(-1);
      if (Array.isArray(address) && address.length === 2) {
        return { host: String(address[0]), port: Number(address[1]) };
      }
      lastError = `sentinel ${sentinel.host}:${sentinel.port} does not know master '${name}'`;
    } catch (error) {
      lastError = `sentinel ${sentinel.host}:${sentinel.port}: ${errorText(error as Error)}`;
    }
  }
  throw new StoreError(`cannot find the master '${name}' through the sentinels: ${lastError}`);
}

/** Sends the commands on a short-lived connection and resolves with their replies. */
function exchange(target: HostPort, commands: readonly string[][], timeoutMs: number): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const replies: unknown[] = [];
    const socket = createConnection({ host: target.host, port: target.port });
    const finish = (error?: Error) => {
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(replies);
    };
    const timer = setTimeout(() => finish(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    const parser = new RedisParser({
      returnReply: (reply: unknown) => {
        replies.push(reply);
        if (replies.length === commands.length) finish();
      },
      returnError: (error: Error) => finish(error),
    });
    socket.on('data', (chunk: Buffer) => parser.execute(chunk));
    socket.on('error', (error: Error) => finish(error));
    socket.on('close', () => finish(new Error('connection closed before the answer')));
    socket.write(commands.map(encodeCommand).join(''));
  });
}
