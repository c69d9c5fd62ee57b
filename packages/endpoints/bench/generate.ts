import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Writes `count` controller modules, ten per directory, each with a Default class and one named
 * class whose handler takes a positional and a keyword, as a realistic discovery workload.
 */
export function generateControllers(
  root: string,
  count: number,
  extension: 'ts' | 'js',
  frameworkIndex: string,
) {
  rmSync(root, { recursive: true, force: true });
  for (let i = 0; i < count; i += 1) {
    const dir = join(root, `area${Math.floor(i / 10)}`);
    mkdirSync(dir, { recursive: true });
    const typed = extension === 'ts';
    const source = `import { Controller } from ${JSON.stringify(frameworkIndex)};
export class Default extends Controller {
  GET(id${typed ? ': string' : ''}, { verbose = false }${typed ? ': { verbose?: boolean }' : ''} = {}) {
    return { module: ${i}, id, verbose };
  }
}
export class Item${i} extends Controller {
  POST({ name }${typed ? ': { name: string }' : ''}) {
    return { item: ${i}, name };
  }
}
`;
    writeFileSync(join(dir, `module_${i}.${extension}`), source);
  }
}
