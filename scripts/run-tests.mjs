#!/usr/bin/env node
// Runs node:test through tsx over an explicit list of test files: on Node 20, `tsx --test`
// without a file list finds no .ts tests. One invocation, so the run ends with one summary, then
// with the ten slowest files and the run's wall time, and last with a block that names every skipped suite
// and test and why.
// Usage: node scripts/run-tests.mjs [packages/<name> | <file>.test.ts ...]   (default: every package and test/)
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LOCAL_DATABASE_URL, localPostgresAnswers } from './test-run/local-postgres.mjs';

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

// Every package, and the repository's own tests (test/: npm start, a fresh clone, this script).
const packages =
  process.argv.length > 2
    ? process.argv.slice(2).map((p) => resolve(root, p))
    : [...readdirSync(join(root, 'packages')).map((name) => join(root, 'packages', name)), root];

// A test file given by name runs by itself; a package runs every test file under its test/.
const files = packages
  .flatMap((pkg) => (existsSync(pkg) && statSync(pkg).isFile() ? [pkg] : testFiles(join(pkg, 'test'))))
  .sort();
if (files.length === 0) {
  console.error(`no test files under ${packages.map((p) => relative(root, p)).join(', ')}`);
  process.exit(1);
}

const env = { ...process.env };
// Run from inside a test (this script's own test), node:test would report to that test's runner.
delete env.NODE_TEST_CONTEXT;
if (!env.DATABASE_URL) {
  if (await localPostgresAnswers()) {
    env.DATABASE_URL = LOCAL_DATABASE_URL;
    console.log(`DATABASE_URL is not set: the PostgreSQL tests use ${LOCAL_DATABASE_URL}, which answers`);
  } else {
    console.log(
      `DATABASE_URL is not set and ${LOCAL_DATABASE_URL} does not answer: the PostgreSQL tests are skipped (scripts/services.sh starts one)`,
    );
  }
}

// Four files at once on two cores: most files wait on child processes, sockets, PostgreSQL and Chromium
// rather than computing, so two at a time left the cores idle. Measured on 2026-11-27 (2 shared cores, 144
// files, every test passing both ways): 577 s at 2 (load 7-12), 282 s at 4 (load 5-8). TEST_CONCURRENCY
// overrides it.
const concurrency = process.env.TEST_CONCURRENCY ?? '4';
const tsx = join(root, 'node_modules', '.bin', 'tsx');
const scratch = mkdtempSync(join(tmpdir(), 'run-tests-'));
const skipsFile = join(scratch, 'skipped.txt');
const slowestFile = join(scratch, 'slowest.txt');
const started = performance.now();
const child = spawn(
  tsx,
  [
    '--test',
    `--test-concurrency=${concurrency}`,
    // The reporter node:test picks by itself, and the skip summary printed after it.
    `--test-reporter=${process.stdout.isTTY ? 'spec' : 'tap'}`,
    '--test-reporter-destination=stdout',
    `--test-reporter=${join(root, 'scripts', 'test-run', 'skip-summary.mjs')}`,
    `--test-reporter-destination=${skipsFile}`,
    `--test-reporter=${join(root, 'scripts', 'test-run', 'slowest-files.mjs')}`,
    `--test-reporter-destination=${slowestFile}`,
    ...files.map((f) => relative(root, f)),
  ],
  { cwd: root, env, stdio: 'inherit' },
);
child.on('exit', (code, signal) => {
  if (existsSync(slowestFile)) process.stdout.write(readFileSync(slowestFile, 'utf8'));
  process.stdout.write(
    `== wall time: ${((performance.now() - started) / 1000).toFixed(1)} s for ${files.length} test files\n`,
  );
  if (existsSync(skipsFile)) process.stdout.write(readFileSync(skipsFile, 'utf8'));
  rmSync(scratch, { recursive: true, force: true });
  process.exit(signal ? 1 : (code ?? 1));
});
