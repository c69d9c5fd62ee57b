import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

export interface ManagedProcess {
  readonly pid: number;
  /** Everything the process wrote so far, for error messages. */
  output(): string;
  /** Kills the process (SIGKILL after a grace period) and waits for it to exit. Idempotent. */
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();

function killAllSync(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}

// Children must not outlive the test process, even when a test throws or the run is interrupted.
process.once('exit', killAllSync);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killAllSync();
    process.kill(process.pid, signal);
  });
}

export function spawnManaged(command: string, args: string[]): ManagedProcess {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  if (child.pid === undefined) throw new Error(`could not start ${command}`);
  running.add(child);
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-8192);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = once(child, 'exit');
  child.once('exit', () => running.delete(child));
  const pid = child.pid;

  return {
    pid,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
      await exited;
      clearTimeout(timer);
    },
  };
}
