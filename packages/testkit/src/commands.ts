import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:net';

export interface CommandResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command to its exit (killed after `timeoutMs`, default 3 minutes: a shared machine can be slow) and returns its exit code and output. */
export function runCommand(
  command: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<CommandResult> {
  return new Promise((resolve) => {
    execFile(
      command,
      [...args],
      {
        env: { ...process.env, ...options.env },
        cwd: options.cwd,
        timeout: options.timeoutMs ?? 180_000,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/**
 * The startup and usage error style every command shares: exactly one line on stderr, no stack
 * trace, matching `pattern`, and the expected exit code.
 */
export function assertOneLineError(result: CommandResult, code: number, pattern: RegExp): void {
  const context = `exit ${result.code}\nstderr:\n${result.stderr}\nstdout:\n${result.stdout}`;
  assert.equal(result.code, code, context);
  assert.doesNotMatch(result.stderr, /^\s+at /m, context);
  const lines = result.stderr.split('\n').filter((line) => line !== '');
  assert.equal(lines.length, 1, context);
  assert.match(lines[0] as string, pattern, context);
}

/** Holds a loopback port, so a command told to use it meets EADDRINUSE. */
export async function occupyPort(host = '127.0.0.1'): Promise<{ port: number; release(): Promise<void> }> {
  const server: Server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, resolve);
  });
  const { port } = server.address() as { port: number };
  return { port, release: () => new Promise((resolve) => server.close(() => resolve())) };
}
