import { type FSWatcher, watch } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import type { Logger } from '../log.js';
import type { ApplyConfig, ConfigProvider, ConfigSource } from './provider.js';

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

  /** Loads once (a failed load is logged and counted by `apply`), then watches. */
  async start(apply: ApplyConfig): Promise<void> {
    await this.reload(apply);
    this.watch(apply);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.watcher?.close();
    if (this.debounce) clearTimeout(this.debounce);
    await this.reloading;
  }

  /** Reads the current file set, as the config check command and tests use it. */
  async readSources(): Promise<ConfigSource[]> {
    const directory = this.appDirectory;
    const files = await listFiles(directory, this.options.ignoreDotFiles);
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
        this.log.error(`cannot read config directory ${this.appDirectory}: ${(error as Error).message}`);
        return;
      }
      try {
        apply(sources);
      } catch {
        // apply has counted config_load_error and logged; the previous config stays in force.
      }
    });
    return this.reloading;
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
      this.watcher.on('error', (error) =>
        this.log.error(`config watcher on ${target} failed: ${error.message}`),
      );
    } catch (error) {
      this.log.warn(
        `cannot watch ${target} (${(error as Error).message}); config changes need a restart until it exists`,
      );
    }
  }
}

/** Every regular file under `directory`, recursively, sorted; a missing directory is empty. */
async function listFiles(directory: string, ignoreDotFiles: boolean): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(directory);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
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
