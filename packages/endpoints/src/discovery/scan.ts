import { type Dirent, readdirSync, realpathSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { EndpointsError } from '../errors.js';
import { moduleSegment } from '../naming.js';
import type { ResolvedPrefix } from './prefix.js';
import type { DiscoveryReport } from './report.js';

/** A controller module found under a prefix, with the URL segments it answers. */
export interface ModuleFile {
  readonly file: string;
  readonly segments: readonly string[];
}

const MODULE_EXTENSION = /\.(?:ts|mts|js|mjs)$/;

/** Why a directory entry is not a controller module (or not walked into), or null when it is one. */
function ignoredBecause(name: string, directory: boolean): string | null {
  if (name === 'node_modules') return 'node_modules is never mounted';
  if (name.startsWith('.')) return `names starting with '.' are hidden`;
  if (name.startsWith('_')) return `names starting with '_' are private`;
  if (directory) return null;
  if (/\.d\.[cm]?ts$/.test(name)) return 'type declarations (*.d.ts) are not modules';
  if (/\.(?:test|spec)\.[cm]?[jt]s$/.test(name)) return 'test files (*.test.*, *.spec.*) are not mounted';
  if (!MODULE_EXTENSION.test(name)) return 'only .ts, .mts, .js and .mjs files are modules';
  return null;
}

/**
 * Lists the modules under a prefix: `index.*` is the package module of its directory, `foo_bar.ts`
 * answers `foo-bar`. Hidden, private and `node_modules` directories are not walked into; symlinks
 * that lead outside the prefix are not followed. Everything passed over goes to `report`. Two files
 * for one module (`foo.ts` and `foo/index.ts`, or `foo.ts` and `foo.js`) fail startup.
 */
export function scanPrefix(prefix: ResolvedPrefix, report: DiscoveryReport, cwd: string): ModuleFile[] {
  const where = (file: string) => relative(cwd, file) || file;
  const modules: ModuleFile[] = [];
  if (prefix.rootFile) modules.push({ file: prefix.rootFile, segments: [] });
  const directory = prefix.directory;
  if (directory) {
    const root = realpathSync(directory);
    const visit = (dir: string, parts: string[]) => {
      const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
      for (const entry of entries) {
        const path = join(dir, entry.name);
        const kind = entryKind(entry, path, root);
        if (kind === 'outside') {
          report.skip({
            file: where(path),
            reason: 'outside the prefix',
            detail: 'a symlink leading outside the prefix',
          });
          continue;
        }
        if (kind === 'other') continue;
        const ignored = ignoredBecause(entry.name, kind === 'directory');
        if (ignored) {
          report.skip({ file: where(path), reason: 'ignored file pattern', detail: ignored });
          continue;
        }
        if (kind === 'directory') {
          visit(path, [...parts, entry.name]);
          continue;
        }
        const stem = entry.name.replace(/\.[^.]+$/, '');
        const segments = stem === 'index' ? parts : [...parts, stem];
        modules.push({ file: path, segments: segments.map(moduleSegment) });
      }
    };
    visit(directory, []);
  }
  const seen = new Map<string, string>();
  const unique: ModuleFile[] = [];
  for (const module of modules) {
    const key = module.segments.join('/');
    const other = seen.get(key);
    if (other) {
      const message = `${other} and ${module.file} are the same module (/${key}); keep only one of them`;
      report.fail(
        { file: where(module.file), reason: 'duplicate module', detail: `same module as ${where(other)}` },
        new EndpointsError('DUPLICATE_MODULE', message),
      );
      continue;
    }
    seen.set(key, module.file);
    unique.push(module);
  }
  return unique.sort((a, b) => a.file.localeCompare(b.file));
}

/** A file or directory to consider, one outside the prefix (through a symlink), or something else. */
function entryKind(entry: Dirent, path: string, root: string): 'file' | 'directory' | 'outside' | 'other' {
  if (entry.isFile()) return 'file';
  if (entry.isDirectory()) return 'directory';
  if (!entry.isSymbolicLink()) return 'other';
  let target: string;
  try {
    target = realpathSync(path);
  } catch {
    return 'other';
  }
  if (!target.startsWith(root + sep)) return 'outside';
  // A symlinked directory inside the prefix would mount its modules twice; only files are followed.
  return statSync(target).isFile() ? 'file' : 'other';
}
