import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** The lock file, inside the data directory (PostgreSQL keeps its postmaster.pid there too). */
export const LOCK_FILE = 'books.pid';

/** Another live process holds the directory: opening it too would lose one side's writes. */
export class DataDirInUseError extends Error {
  readonly code = 'BOOKS_DATA_DIR_IN_USE';
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `the PGlite data directory ${dataDir} is in use by process ${pid}; stop that process first (a running server: stop it, then run this command), or use another DATABASE_URL`,
    );
  }
}

export interface DataDirLock {
  release(): void;
}

// Directories this process holds: a second open in the same process is refused as well.
const held = new Set<string>();

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readPid(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Makes this process the only writer of a PGlite data directory. PGlite is PostgreSQL in WASM without
 * a postmaster: two processes on one directory each keep their own buffers, and the later checkpoint
 * silently wins. The lock file holds the pid; a file left by a process that no longer runs is taken over.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  const path = join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number;
    try {
      fd = openSync(path, 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = readPid(path);
      const ours = pid === process.pid && !held.has(dataDir);
      if (pid !== undefined && !ours && isAlive(pid)) throw new DataDirInUseError(dataDir, pid);
      // Stale (its process is gone) or unreadable (a crash while writing it): take it over.
      unlinkSync(path);
      continue;
    }
    writeSync(fd, `${process.pid}\n`);
    closeSync(fd);
    held.add(dataDir);
    return {
      release() {
        held.delete(dataDir);
        if (readPid(path) === process.pid) unlinkSync(path);
      },
    };
  }
  throw new Error(`could not take the lock ${path}: another process keeps creating it`);
}
