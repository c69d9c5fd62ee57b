import { ConfigError } from '../config.js';
import { DataDirInUseError } from '../db/data-dir-lock.js';

/** Where the service listens, to name the address and its settings in an error. */
export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

const LISTEN_PROBLEMS: Record<string, string> = {
  EADDRINUSE: 'address already in use; set PORT to a free port (0 picks one)',
  EACCES: 'permission denied (ports below 1024 need privileges); set PORT to 1024 or higher',
  EADDRNOTAVAIL: 'address not available on this machine; set HOST to a local address such as 127.0.0.1',
  ENOTFOUND: 'no such host; set HOST to a local address such as 127.0.0.1',
  EAI_AGAIN: 'host name lookup failed; set HOST to a local address such as 127.0.0.1',
};

const DATABASE_PROBLEMS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'no such host',
  ETIMEDOUT: 'timed out',
  EHOSTUNREACH: 'host unreachable',
};

/**
 * The one line a failed start prints: the value, what is wrong and the setting to change, e.g.
 * `cannot listen on 127.0.0.1:3000: address already in use; set PORT to a free port (0 picks one)`.
 */
export function describeStartupError(error: unknown, listen: ListenAddress | undefined): string {
  if (error instanceof ConfigError || error instanceof DataDirInUseError) return error.message;
  const coded = error as NodeJS.ErrnoException & { address?: string; port?: number; hostname?: string };
  // The development identity provider's errors already name the address and the setting.
  if (coded.code?.startsWith('DEV_IDP_')) return coded.message;
  const code = coded.code ?? '';
  const atListenAddress =
    coded.syscall === 'listen' || (coded.syscall === 'getaddrinfo' && coded.hostname === listen?.host);
  if (atListenAddress && listen && code in LISTEN_PROBLEMS) {
    return `cannot listen on ${listen.host}:${listen.port}: ${LISTEN_PROBLEMS[code]}`;
  }
  if (coded.syscall === 'connect' || (coded.syscall === 'getaddrinfo' && coded.hostname !== undefined)) {
    const where = coded.address ? `${coded.address}:${coded.port}` : coded.hostname;
    const why = DATABASE_PROBLEMS[code] ?? code;
    return `cannot reach PostgreSQL at ${where}: ${why}; start it, or set DATABASE_URL (unset: the embedded PGlite database)`;
  }
  if (typeof coded.path === 'string' && code !== '') {
    return `cannot use ${coded.path}: ${code}; check DATABASE_URL (pglite:<directory>) and the directory's permissions`;
  }
  const message = error instanceof Error ? error.message : String(error);
  return `cannot start: ${message.split('\n')[0]}`;
}

/** Prints the line (and, with LOG_LEVEL=debug, the stack) to stderr and exits 1. */
export function exitOnStartupError(error: unknown, listen: ListenAddress | undefined): never {
  process.stderr.write(`books: ${describeStartupError(error, listen)}\n`);
  if (process.env.LOG_LEVEL === 'debug' && error instanceof Error) process.stderr.write(`${error.stack}\n`);
  process.exit(1);
}
