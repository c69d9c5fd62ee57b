#!/usr/bin/env node
// ratelimit-config-check: validates every file of a config directory, like the reference's
// config_check_cmd, and exits 1 with the validation error when one is invalid. The algorithms are
// checked against the store the server's BACKEND_TYPE selects, so a config the server would refuse
// is refused here too (the reference has no algorithms, and so no flag for it).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { storeCapabilities } from '../src/backends/index.js';
import type { StoreCapabilities } from '../src/backends/store.js';
import { exitWithUsageError, type FlagSpec, parseFlagsOrExit } from '../src/cli/flags.js';
import { loadConfig } from '../src/config/loader.js';
import type { ConfigSource } from '../src/config/source.js';
import { SettingsError } from '../src/errors.js';
import { describeFsError } from '../src/provider/file.js';
import { readBackendType } from '../src/settings.js';

const FLAGS: FlagSpec[] = [
  { name: 'config_dir', kind: 'string', usage: 'path to directory containing rate limit configs' },
  {
    name: 'merge_domain_configs',
    kind: 'bool',
    usage: 'whether to merge configurations referencing the same domain',
  },
];

const ENVIRONMENT = `Environment:
  BACKEND_TYPE
    \tthe server's store, redis (default), memcache or memory: with memcache only fixed_window
    \tlimits load, as in the server
`;

const COMMAND = 'ratelimit-config-check';
const flags = parseFlagsOrExit(COMMAND, FLAGS, ENVIRONMENT);

const directory = flags.strings.get('config_dir') ?? '';
if (directory === '')
  exitWithUsageError(COMMAND, '-config_dir is required: the directory of rate limit YAML files');
let store: StoreCapabilities | undefined;
try {
  store = storeCapabilities(readBackendType(process.env));
} catch (error) {
  if (!(error instanceof SettingsError)) throw error;
  process.stderr.write(`${COMMAND}: invalid setting ${error.message}\n`);
  process.exit(1);
}
let names: string[];
try {
  names = readdirSync(directory).sort();
} catch (error) {
  process.stderr.write(
    `${COMMAND}: cannot read config directory '${directory}': ${describeFsError(error)}; set -config_dir to a directory of rate limit YAML files\n`,
  );
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
  loadConfig(sources, flags.strings.get('merge_domain_configs') === 'true', store);
  process.stdout.write('all rate limit configs ok\n');
} catch (error) {
  process.stdout.write(`error loading rate limit configs: ${(error as Error).message}\n`);
  process.exit(1);
}
