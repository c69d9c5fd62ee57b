import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { packageRoot } from '../../src/paths.js';

/** The repository's tsx, which runs the quickstart (`npm start`) from its TypeScript source. */
export const tsx = join(packageRoot, '..', '..', 'node_modules', '.bin', 'tsx');
/** The bin launcher `npx books` runs: in a checkout it loads tsx in its own process and runs bin/books.ts. */
export const booksLauncher = join(packageRoot, 'bin', 'books.mjs');

export interface CommandResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `books <args>` to its end and gives its exit code and output, whether it succeeded or not. */
export function books(args: string[], env: NodeJS.ProcessEnv): Promise<CommandResult> {
  return promisify(execFile)(process.execPath, [booksLauncher, ...args], {
    cwd: packageRoot,
    env: { ...process.env, ...env },
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: CommandResult) => error,
  );
}
