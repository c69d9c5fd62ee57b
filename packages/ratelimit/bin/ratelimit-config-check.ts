#!/usr/bin/env node
// ratelimit-config-check: validates every file of a config directory, like the reference's
// config_check_cmd, and exits 1 with the validation error when one is invalid.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type FlagSpec, parseFlagsOrExit } from '../src/cli/flags.js';
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

const flags = parseFlagsOrExit('ratelimit-config-check', FLAGS);

const directory = flags.strings.get('config_dir') ?? '';
process.stdout.write('checking rate limit configs...\n');
process.stdout.write(`loading config directory: ${directory}\n`);
try {
  const sources: ConfigSource[] = [];
  for (const name of readdirSync(directory).sort()) {
    const path = join(directory, name);
    if (!statSync(path).isFile()) continue;
    process.stdout.write(`opening config file: ${path}\n`);
    sources.push({ kind: 'yaml', name, text: readFileSync(path, 'utf8') });
  }
  loadConfig(sources, flags.strings.get('merge_domain_configs') === 'true');
  process.stdout.write('all rate limit configs ok\n');
} catch (error) {
  process.stdout.write(`error loading rate limit configs: ${(error as Error).message}\n`);
  process.exit(1);
}
