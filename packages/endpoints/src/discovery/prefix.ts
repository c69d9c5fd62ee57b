import { existsSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, parse, resolve } from 'node:path';
import { EndpointsError } from '../errors.js';

/** A controller prefix resolved to disk: a directory of modules, or a single module file. */
export interface ResolvedPrefix {
  /** As the user wrote it, for messages. */
  readonly spec: string;
  /** Directory whose modules are mounted below the root; null for a lone module file. */
  readonly directory: string | null;
  /** A module file mounted at the root itself (`controllers.ts` beside or instead of the directory). */
  readonly rootFile: string | null;
}

const MODULE_EXTENSIONS = ['.ts', '.mts', '.js', '.mjs'];

function looksLikePath(spec: string): boolean {
  return isAbsolute(spec) || spec.startsWith('.') || spec.includes('\\');
}

/** `@scope/name/sub/dir` → the directory `sub/dir` inside the installed package, found like Node does. */
function packageDirectory(spec: string, cwd: string): string | null {
  const parts = spec.split('/');
  const nameLength = spec.startsWith('@') ? 2 : 1;
  const name = parts.slice(0, nameLength).join('/');
  const subpath = parts.slice(nameLength);
  for (let dir = cwd; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(candidate)) return join(candidate, ...subpath);
    if (dirname(dir) === dir) return null;
  }
}

function siblingModule(directory: string): string | null {
  for (const extension of MODULE_EXTENSIONS) {
    const file = `${directory}${extension}`;
    if (existsSync(file)) return file;
  }
  return null;
}

/**
 * Resolves one prefix: a relative or absolute path (a directory, or a module file), or a package
 * specifier naming a directory inside an installed package. A bare name that exists under `cwd` is a
 * path. A module file `controllers.ts` next to a directory `controllers/` is mounted at the root too,
 * like Python's `controllers.py`.
 */
export function resolvePrefix(spec: string, cwd: string): ResolvedPrefix {
  const local = resolve(cwd, spec);
  const path =
    looksLikePath(spec) || existsSync(local) || siblingModule(local) ? local : packageDirectory(spec, cwd);
  if (path === null) {
    throw new EndpointsError(
      'PREFIX_NOT_FOUND',
      `controller prefix '${spec}' is neither a path under ${cwd} nor an installed package; check APP_PREFIX or --prefix`,
    );
  }
  if (existsSync(path) && statSync(path).isFile()) {
    const { dir, name } = parse(path);
    const directory = join(dir, name);
    return { spec, directory: existsSync(directory) ? directory : null, rootFile: path };
  }
  if (existsSync(path) && statSync(path).isDirectory())
    return { spec, directory: path, rootFile: siblingModule(path) };
  const file = siblingModule(path);
  if (file) return { spec, directory: null, rootFile: file };
  throw new EndpointsError(
    'PREFIX_NOT_FOUND',
    `controller prefix '${spec}' does not exist (looked for ${path})`,
  );
}
