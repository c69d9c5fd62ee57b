import { readdirSync, realpathSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { EndpointsError } from '../errors.js';
import { moduleSegment } from '../naming.js';
import type { ResolvedPrefix } from './prefix.js';

/** A controller module found under a prefix, with the URL segments it answers. */
export interface ModuleFile {
  readonly file: string;
  readonly segments: readonly string[];
}

const MODULE_FILE = /^(?!.*\.d\.[cm]?ts$)(?!.*\.(?:test|spec)\.[cm]?[jt]s$)[^._][^/]*\.(?:ts|mts|js|mjs)$/;

/** Directory parts and file names starting with `_` or `.` are private; so is node_modules. */
function isHidden(part: string): boolean {
  return part.startsWith('_') || part.startsWith('.') || part === 'node_modules';
}

/**
 * Lists the modules under a prefix: `index.*` is the package module of its directory, `foo_bar.ts`
 * answers `foo-bar`. Files reached through symlinks that leave the prefix are not mounted. Two files
 * for one module (`foo.ts` and `foo/index.ts`, or `foo.ts` and `foo.js`) fail startup.
 */
export function scanPrefix(prefix: ResolvedPrefix): ModuleFile[] {
  const modules: ModuleFile[] = [];
  if (prefix.rootFile) modules.push({ file: prefix.rootFile, segments: [] });
  const directory = prefix.directory;
  if (directory) {
    const root = realpathSync(directory);
    const entries = readdirSync(directory, { recursive: true, withFileTypes: true });
    for (const entry of entries) {
      if (!entry.isFile() || !MODULE_FILE.test(entry.name)) continue;
      const file = join(entry.parentPath, entry.name);
      const parts = relative(directory, file).split(sep);
      if (parts.some(isHidden)) continue;
      if (!realpathSync(file).startsWith(root + sep)) continue;
      const stem = (parts.pop() as string).replace(/\.[^.]+$/, '');
      if (stem !== 'index') parts.push(stem);
      modules.push({ file, segments: parts.map(moduleSegment) });
    }
  }
  const seen = new Map<string, string>();
  for (const module of modules) {
    const key = module.segments.join('/');
    const other = seen.get(key);
    if (other) {
      throw new EndpointsError(
        'DUPLICATE_MODULE',
        `${other} and ${module.file} are the same module (/${key}); keep only one of them`,
      );
    }
    seen.set(key, module.file);
  }
  return modules.sort((a, b) => a.file.localeCompare(b.file));
}
