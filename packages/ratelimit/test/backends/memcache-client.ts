import { connect } from 'node:net';

/**
 * Sends one raw text-protocol command to a memcached on loopback and returns the reply up to
 * the terminating line: lets tests look at what the store wrote without going through it.
 */
export function memcacheCommand(
  port: number,
  command: string,
  terminator = /(?:^|\n)(?:END|HD[^\r]*|EN|STORED|NOT_STORED|NOT_FOUND|ERROR[^\r]*)\r\n$/,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let reply = '';
    socket.setTimeout(2000, () => {
      socket.destroy();
      reject(new Error(`no complete reply to '${command.trim()}' from 127.0.0.1:${port}: '${reply}'`));
    });
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      reply += chunk.toString('latin1');
      if (terminator.test(reply)) {
        socket.destroy();
        resolve(reply);
      }
    });
    socket.write(command);
  });
}

/** The stored value of a key, or undefined when the server does not hold it. */
export async function memcacheValue(port: number, key: string): Promise<string | undefined> {
  const reply = await memcacheCommand(port, `get ${key}\r\n`);
  const match = /^VALUE \S+ \d+ \d+\r\n([^\r]*)\r\n/.exec(reply);
  return match?.[1];
}

/** Seconds the key has left to live (meta get `t` flag), or undefined when missing. */
export async function memcacheTtl(port: number, key: string): Promise<number | undefined> {
  const reply = await memcacheCommand(port, `mg ${key} t\r\n`);
  const match = /^HD t(-?\d+)/.exec(reply);
  return match ? Number(match[1]) : undefined;
}
