import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';

/**
 * The environment with the settings of an untracked local env file (default `.env.local`) filled in
 * underneath: a variable set in the real environment wins. Client secrets live there, never in git.
 * A missing file is normal; an unreadable one is an error worth seeing.
 */
export function withLocalEnv(path = '.env.local', env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return env;
    throw error;
  }
  return { ...parseEnv(text), ...env };
}
