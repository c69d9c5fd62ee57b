import { type ChildProcess, spawn } from 'node:child_process';
import { type FSWatcher, watch } from 'node:fs';
import { resolvePrefix } from '../discovery/prefix.js';
import { resolveSettings } from '../settings.js';
import type { CliOptions } from './args.js';

const SETTLE_MS = 100;

/** Directories to watch: each prefix's directory, or the folder of a lone module file. */
function watchedPaths(options: CliOptions): string[] {
  const settings = resolveSettings(options.prefixes.length > 0 ? { controllerPrefix: options.prefixes } : {});
  return settings.prefixes.flatMap((spec) => {
    const prefix = resolvePrefix(spec, settings.cwd);
    return [prefix.directory, prefix.rootFile].filter((path): path is string => path !== null);
  });
}

/**
 * `--reload`: runs the server in a child process and restarts it when a file under a prefix changes.
 * A restart is leak-free, unlike re-importing modules (the ESM cache cannot be cleared).
 */
export function superviseWithReload(options: CliOptions, argv: readonly string[]): void {
  const childArgs = [
    ...process.execArgv,
    process.argv[1] as string,
    ...argv.filter((arg) => arg !== '--reload'),
  ];
  let child: ChildProcess | undefined;
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;

  const start = () => {
    // The IPC channel lets the server notice when this supervisor dies and stop with it.
    child = spawn(process.execPath, childArgs, { stdio: ['inherit', 'inherit', 'inherit', 'ipc'] });
    child.once('exit', (code, signal) => {
      child = undefined;
      if (stopping) process.exit(code ?? (signal ? 1 : 0));
    });
  };

  const restart = (file: string) => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      process.stdout.write(`endpoints: ${file} changed, restarting\n`);
      if (!child) return start();
      child.once('exit', start);
      child.kill('SIGTERM');
    }, SETTLE_MS);
  };

  const watchers: FSWatcher[] = watchedPaths(options).map((path) =>
    watch(path, { recursive: true }, (_event, file) => restart(String(file ?? path))),
  );

  const stop = () => {
    stopping = true;
    for (const watcher of watchers) watcher.close();
    clearTimeout(timer);
    if (child) child.kill('SIGTERM');
    else process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  start();
}
