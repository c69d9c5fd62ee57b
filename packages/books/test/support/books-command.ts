import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { packageRoot } from '../../src/paths.js';

/** The repository's tsx, which runs the `books` command from its TypeScript source. */
export const tsx = join(packageRoot, '..', '..', 'node_modules', '.bin', 'tsx');

export interface CommandResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `books <args>` to its end and gives its exit code and output, whether it succeeded or not. */
export function books(args: string[], env: NodeJS.ProcessEnv): Promise<CommandResult> {
  return promisify(execFile)(tsx, ['bin/books.ts', ...args], {
    cwd: packageRoot,
    env: { ...process.env, ...env },
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: CommandResult) => error,
  );
}
