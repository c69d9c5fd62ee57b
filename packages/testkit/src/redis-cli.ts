import { execFile } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import { requireBinary } from './binaries.js';

const run = promisify(execFile);

/** Runs one redis-cli command against host:port and returns its trimmed output. */
export async function redisCli(port: number, args: string[], host = '127.0.0.1'): Promise<string> {
  const path = requireBinary('redis-cli', 'redis-tools');
  if (typeof path !== 'string') throw new Error(path.message);
  const { stdout } = await run(path, ['-h', host, '-p', String(port), ...args], { timeout: 20_000 });
  return stdout.trim();
}

/** Polls a redis-cli command until `accept` holds for its output, or fails after timeoutMs. */
export async function waitForRedisCli(
  port: number,
  args: string[],
  accept: (output: string) => boolean,
  timeoutMs = 20_000,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    try {
      last = await redisCli(port, args);
      if (accept(last)) return last;
    } catch (error) {
      last = (error as Error).message;
    }
    await delay(100);
  }
  throw new Error(
    `redis-cli -p ${port} ${args.join(' ')} did not reach the expected state; last output:\n${last}`,
  );
}
