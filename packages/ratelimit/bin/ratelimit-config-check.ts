#!/usr/bin/env node
// ratelimit-config-check: validates every file of a config directory, like the reference's
// config_check_cmd, and exits 1 with the validation error when one is invalid.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { exitWithUsageError, type FlagSpec, parseFlagsOrExit } from '../src/cli/flags.js';
import { loadConfig } from '../src/config/loader.js';
import type { ConfigSource } from '../src/provider/provider.js';

const FLAGS: FlagSpec[] = [
  { name: 'config_dir', kind: 'string', usage: 'path to directory containing rate limit configs' },
  {
    name: 'merge_domain_configs',
    kind: 'bool',
    usage: 'whether to merge configurations referencing the same domain',
  },
];

const COMMAND = 'ratelimit-config-check';
const flags = parseFlagsOrExit(COMMAND, FLAGS);

const directory = flags.strings.get('config_dir') ?? '';
if (directory === '')
  exitWithUsageError(COMMAND, '-config_dir is required: the directory of rate limit YAML files');
let names: string[];
try {
  names = readdirSync(directory).sort();
} catch (error) {
  process.stderr.write(`${COMMAND}: ${unreadableDirectory(directory, error)}\n`);
  process.exit(1);
}

process.stdout.write('checking rate limit configs...\n');
process.stdout.write(`loading config directory: ${directory}\n`);
try {
  const sources: ConfigSource[] = [];
  for (const name of names) {
    const path = join(directory, name);
    if (!statSync(path).isFile()) continue;
    process.stdout.write(`opening config file: ${path}\n`);
    // Errors name the file as the directory joined with it, as given on the command line (the reference's).
    sources.push({ kind: 'yaml', name: path, text: readFileSync(path, 'utf8') });
  }
  loadConfig(sources, flags.strings.get('merge_domain_configs') === 'true');
  process.stdout.write('all rate limit configs ok\n');
} catch (error) {
  process.stdout.write(`error loading rate limit configs: ${(error as Error).message}\n`);
  process.exit(1);
}

function unreadableDirectory(path: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const why =
    code === 'ENOENT'
      ? 'no such directory'
      : code === 'ENOTDIR'
        ? 'not a directory'
        : code === 'EACCES'
          ? 'permission denied'
          : (error as Error).message;
  return `cannot read config directory '${path}': ${why}; set -config_dir to a directory of rate limit YAML files`;
}
