import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { type ManagedProcess, spawnManaged } from '@platform/testkit';

const packageRoot = fileURLToPath(new URL('../..', import.meta.url));
const tsx = join(packageRoot, '..', '..', 'node_modules', '.bin', 'tsx');
const bin = join(packageRoot, 'bin', 'endpoints.ts');
const LISTENING = /endpoints listening on (http:\/\/127\.0\.0\.1:(\d+))/;

export interface CliServer {
  /** `http://127.0.0.1:<port>` */
  readonly base: string;
  readonly child: ManagedProcess;
}

/**
 * Starts the endpoints CLI on a free port over `prefix`, with further `flags`, and waits until it says
 * where it listens.
 */
export async function startCli(
  prefix: string,
  { flags = [], timeoutMs = 30_000 }: { flags?: string[]; timeoutMs?: number } = {},
): Promise<CliServer> {
  const child = spawnManaged(tsx, [bin, '--prefix', prefix, '--host', '127.0.0.1:0', ...flags]);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const match = LISTENING.exec(child.output());
    if (match) return { base: match[1] as string, child };
    await delay(50);
  }
  await child.stop();
  throw new Error(`the CLI did not report listening:\n${child.output()}`);
}

/** Runs the CLI over `prefix` until it exits (a startup failure); its exit code and stderr. */
export function failedStart(prefix: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      tsx,
      [bin, '--prefix', prefix, '--host', '127.0.0.1:0'],
      { timeout: 30_000 },
      (error, _out, stderr) => {
        resolve({ code: (error as { code?: number } | null)?.code ?? 0, stderr });
      },
    );
  });
}
