#!/usr/bin/env node
// Starts every system that has a `start` script, each on its embedded defaults, with its output
// prefixed by its name. Stops them all on Ctrl-C, or when one of them exits.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const systems = ['ratelimit', 'endpoints', 'books'];
const children = new Map();
let stopping = false;
let exitCode = 0;

function prefixLines(name, stream, target) {
  let pending = '';
  stream.on('data', (chunk) => {
    const lines = (pending + chunk.toString()).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) target.write(`[${name}] ${line}\n`);
  });
  stream.on('end', () => pending && target.write(`[${name}] ${pending}\n`));
}

/** Signals a system's whole process group: npm, its shell, tsx and the server itself. */
function signalGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group is already gone.
  }
}

function stopAll() {
  if (stopping) return;
  stopping = true;
  for (const child of children.values()) signalGroup(child, 'SIGTERM');
  // A system that ignores SIGTERM must not keep the others' terminal hostage.
  setTimeout(() => process.exit(exitCode), 5000).unref();
}

for (const name of systems) {
  const dir = join(root, 'packages', name);
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  if (!manifest.scripts?.start) {
    console.log(`[${name}] not built yet: packages/${name} has no start script, so it is not started`);
    continue;
  }
  // Each system in its own process group, so stopping reaches every process npm started for it,
  // whether the stop comes from Ctrl-C or from a SIGTERM sent to this script alone.
  const child = spawn('npm', ['run', '--silent', 'start'], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  children.set(name, child);
  prefixLines(name, child.stdout, process.stdout);
  prefixLines(name, child.stderr, process.stderr);
  child.on('exit', (code, signal) => {
    children.delete(name);
    if (!stopping) {
      console.error(`[${name}] exited (${signal ?? `code ${code}`}); stopping the others`);
      exitCode = 1;
      stopAll();
    }
    if (children.size === 0) process.exit(exitCode);
  });
}

if (children.size === 0) console.log('nothing to start yet');
process.on('SIGINT', stopAll);
process.on('SIGTERM', stopAll);
