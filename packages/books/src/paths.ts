import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root (holding openapi/ and migrations/), found from both src/ (tsx) and dist/src/ (built). */
function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('books: package.json not found above the running module');
    dir = parent;
  }
  return dir;
}

export const packageRoot = findPackageRoot();
export const contractPath = join(packageRoot, 'openapi', 'openapi.yaml');
/** The contract as JSON, generated from contractPath by `npm run generate` (see loadContract). */
export const contractJsonPath = join(packageRoot, 'openapi', 'openapi.json');
export const migrationsDir = join(packageRoot, 'migrations');
