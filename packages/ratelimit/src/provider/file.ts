import { type FSWatcher, watch } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import type { ApplyConfig, ConfigSource } from '../config/source.js';
import { StartupError } from '../errors.js';
import type { Logger } from '../log.js';
import type { ConfigProvider } from './provider.js';

export interface FileProviderOptions {
  readonly runtimeRoot: string;
  readonly runtimeSubdirectory: string;
  readonly runtimeAppDirectory: string;
  readonly ignoreDotFiles: boolean;
  /** true: reload when RUNTIME_ROOT (a symlink) is swapped; false: on any change in the app directory. */
  readonly watchRoot: boolean;
  /** Events closer together than this are one reload (a file copy emits several). */
  readonly debounceMs?: number;
}

/**
 * The FILE config source: every file under RUNTIME_ROOT/RUNTIME_SUBDIRECTORY/RUNTIME_APPDIRECTORY
 * (not only *.yaml, like goruntime), named as goruntime names them, re-read in full on each change.
 */
export class FileConfigProvider implements ConfigProvider {
  private watcher: FSWatcher | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private reloading: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly options: FileProviderOptions,
    private readonly log: Logger,
  ) {}

  get appDirectory(): string {
    const { runtimeRoot, runtimeSubdirectory, runtimeAppDirectory } = this.options;
    return join(runtimeRoot, runtimeSubdirectory, runtimeAppDirectory);
  }

  /**
   * Loads once (a config that does not load is logged and counted by `apply`), then watches. A
   * config directory that cannot be read rejects with a StartupError, as the reference cannot start
   * then either; a missing one only does with RUNTIME_WATCH_ROOT=false. With the default `true`
   * the reference walks the tree it finds, so a missing directory is an empty config until
   * RUNTIME_ROOT is replaced: that stays, with a warning. A directory that cannot be watched stops
   * the start, as in the reference: with `true` the one holding RUNTIME_ROOT (the swap happens there).
   */
  async start(apply: ApplyConfig): Promise<void> {
    let sources: ConfigSource[] = [];
    let warning = '';
    try {
      sources = await this.readSources();
    } catch (error) {
      const missing = await this.missingPart();
      if (!(this.options.watchRoot && missing?.why === NO_SUCH_DIRECTORY)) {
        const problem = missing
          ? `'${missing.path}' (${missing.setting}): ${missing.why}`
          : describeFsError(error, this.appDirectory);
        throw new StartupError(
          `cannot read config directory '${this.appDirectory}': ${problem}; set ${missing?.setting ?? 'RUNTIME_ROOT, RUNTIME_SUBDIRECTORY or RUNTIME_APPDIRECTORY'} so that RUNTIME_ROOT/RUNTIME_SUBDIRECTORY/RUNTIME_APPDIRECTORY is a readable directory of rate limit YAML files`,
        );
      }
      warning = `config directory '${this.appDirectory}' does not exist (no ${missing.setting} '${missing.path}'): no rate limits apply until RUNTIME_ROOT is replaced by a tree that has it`;
    }
    // Watched before the warning: a directory that cannot be watched is the one line of a failed start.
    this.watch(apply);
    if (warning) this.log.warn(warning);
    applySources(apply, sources);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.watcher?.close();
    if (this.debounce) clearTimeout(this.debounce);
    await this.reloading;
  }

  /** Reads the current file set; a missing config directory rejects (ENOENT). */
  async readSources(): Promise<ConfigSource[]> {
    const directory = this.appDirectory;
    const files = await listFiles(directory, this.options.ignoreDotFiles, true);
    const nameBase = this.options.watchRoot
      ? join(this.options.runtimeRoot, this.options.runtimeSubdirectory)
      : directory;
    return Promise.all(
      files.map(async (path) => ({
        kind: 'yaml' as const,
        name: relative(nameBase, path).split(sep).join('.'),
        text: await readFile(path, 'utf8'),
      })),
    );
  }

  private reload(apply: ApplyConfig): Promise<void> {
    this.reloading = this.reloading.then(async () => {
      if (this.stopped) return;
      let sources: ConfigSource[];
      try {
        sources = await this.readSources();
      } catch (error) {
        // A root swapped in without the directory is an empty config, as the reference's walk makes it.
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') sources = [];
        else {
          this.log.error(`cannot read config directory ${this.appDirectory}: ${(error as Error).message}`);
          return;
        }
      }
      applySources(apply, sources);
    });
    return this.reloading;
  }

  /** The first of RUNTIME_ROOT, RUNTIME_SUBDIRECTORY and RUNTIME_APPDIRECTORY whose part of the path is not a directory. */
  private async missingPart(): Promise<{ setting: string; path: string; why: string } | undefined> {
    const { runtimeRoot, runtimeSubdirectory, runtimeAppDirectory } = this.options;
    let path = '';
    for (const [setting, part] of [
      ['RUNTIME_ROOT', runtimeRoot],
      ['RUNTIME_SUBDIRECTORY', runtimeSubdirectory],
      ['RUNTIME_APPDIRECTORY', runtimeAppDirectory],
    ] as const) {
      if (part === '') continue;
      path = path === '' ? part : join(path, part);
      const why = await stat(path).then(
        (info) => (info.isDirectory() ? '' : 'not a directory'),
        describeFsError,
      );
      if (why) return { setting, path, why };
    }
    return undefined;
  }

  private watch(apply: ApplyConfig): void {
    const { watchRoot, runtimeRoot } = this.options;
    const target = watchRoot ? dirname(runtimeRoot) : this.appDirectory;
    const onEvent = (_event: string, fileName: string | Buffer | null) => {
      if (watchRoot && fileName !== null && fileName.toString() !== basename(runtimeRoot)) return;
      if (this.debounce) clearTimeout(this.debounce);
      this.debounce = setTimeout(() => void this.reload(apply), this.options.debounceMs ?? 20);
    };
    try {
      this.watcher = watch(target, onEvent);
    } catch (error) {
      const why = describeFsError(error);
      const held = watchRoot ? `, the directory holding RUNTIME_ROOT '${runtimeRoot}'` : '';
      const fix = why === NO_SUCH_DIRECTORY ? '; set RUNTIME_ROOT to a path in an existing directory' : '';
      throw new StartupError(`cannot watch '${target}'${held}: ${why}${fix}`);
    }
    this.watcher.on('error', (error) =>
      this.log.error(`config watcher on ${target} failed: ${error.message}`),
    );
  }
}

function applySources(apply: ApplyConfig, sources: readonly ConfigSource[]): void {
  try {
    apply(sources);
  } catch {
    // apply has counted config_load_error and logged; the previous config stays in force.
  }
}

const NO_SUCH_DIRECTORY = 'no such directory';

/** An fs error in a user's words, naming the path when it is not the directory asked about. */
export function describeFsError(error: unknown, directory?: string): string {
  const { code, path } = error as NodeJS.ErrnoException;
  if (path !== undefined && directory !== undefined && path !== directory) {
    return `'${path}': ${describeFsError(error)}`;
  }
  switch (code) {
    case 'ENOENT':
      return NO_SUCH_DIRECTORY;
    case 'ENOTDIR':
      return 'not a directory';
    case 'EACCES':
      return 'permission denied';
    default:
      return (error as Error).message;
  }
}

/**
 * Every regular file under `directory`, recursively, sorted. A subdirectory that vanishes while it
 * is read is empty; the top one rejects with ENOENT when `top`.
 */
async function listFiles(directory: string, ignoreDotFiles: boolean, top = false): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(directory);
  } catch (error) {
    if (!top && (error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const files: string[] = [];
  for (const name of names.sort()) {
    if (ignoreDotFiles && name.startsWith('.')) continue;
    const path = join(directory, name);
    const info = await stat(path).catch(() => undefined);
    if (info?.isDirectory()) files.push(...(await listFiles(path, ignoreDotFiles)));
    else if (info?.isFile()) files.push(path);
  }
  return files;
}
