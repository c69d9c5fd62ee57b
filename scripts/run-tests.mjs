#!/usr/bin/env node
// Runs node:test through tsx over an explicit list of test files: on Node 20, `tsx --test`
// without a file list finds no .ts tests. One invocation, so the run ends with one summary.
// Usage: node scripts/run-tests.mjs [packages/<name> ...]   (default: every package)
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));

function testFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'fixtures') return [];
    if (statSync(path).isDirectory()) return testFiles(path);
    return /\.test\.(ts|mts|js|mjs)$/.test(name) ? [path] : [];
  });
}

const packages =
  process.argv.length > 2
    ? process.argv.slice(2).map((p) => resolve(root, p))
    : readdirSync(join(root, 'packages')).map((name) => join(root, 'packages', name));

const files = packages.flatMap((pkg) => testFiles(join(pkg, 'test'))).sort();
if (files.length === 0) {
  console.error(`no test files under ${packages.map((p) => relative(root, p)).join(', ')}`);
  process.exit(1);
}

const concurrency = process.env.TEST_CONCURRENCY ?? '2';
const tsx = join(root, 'node_modules', '.bin', 'tsx');
const child = spawn(
  tsx,
  ['--test', `--test-concurrency=${concurrency}`, ...files.map((f) => relative(root, f))],
  {
    cwd: root,
    stdio: 'inherit',
  },
);
child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 1)));
