import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export interface ServiceUnavailable {
  binary: string;
  debianPackage: string;
  message: string;
}

const isCi = () => process.env.CI === 'true' || process.env.CI === '1';

function onPath(binary: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, binary);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory; keep looking
    }
  }
  return undefined;
}

/**
 * Finds a service binary. Under CI a missing binary is a hard failure, because CI must
 * install everything; on a developer machine it is reported so the caller can skip loudly.
 */
export function requireBinary(binary: string, debianPackage: string): string | ServiceUnavailable {
  const found = onPath(binary);
  if (found) return found;
  const message = `${binary} not found on PATH: install the Debian package '${debianPackage}' (apt-get install ${debianPackage}) or run scripts/services.sh (services) or scripts/browsers.sh (chromium)`;
  if (isCi()) throw new Error(`CI=true and ${message}`);
  return { binary, debianPackage, message };
}

/**
 * For `test(name, { skip: serviceSkip('redis-server', 'redis-server') }, ...)`:
 * false when the binary exists, otherwise a loud skip reason (also printed to stderr).
 */
export function serviceSkip(binary: string, debianPackage: string): false | string {
  const result = requireBinary(binary, debianPackage);
  if (typeof result === 'string') return false;
  process.stderr.write(`\n*** SKIPPING: ${result.message} ***\n\n`);
  return result.message;
}
