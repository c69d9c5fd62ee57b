#!/usr/bin/env node
// `npm run typecheck`: `tsc --noEmit` for every package and for test/, as many at once as there are cores.
// Each tsc is single-threaded and the projects are independent, so running them one after another (as
// `npm run typecheck --workspaces` does) left a core idle for most of a minute in every `npm test`.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const tsc = join(root, 'node_modules', '.bin', 'tsc');
const projects = [
  ...readdirSync(join(root, 'packages'))
    .map((name) => join('packages', name, 'tsconfig.json'))
    .filter((project) => existsSync(join(root, project))),
  join('test', 'tsconfig.json'),
];

function check(project) {
  return new Promise((done) => {
    const child = spawn(tsc, ['--noEmit', '-p', project], { cwd: root });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('close', (code) => done({ project, code, output }));
  });
}

const queue = [...projects];
const failed = [];
async function worker() {
  for (let project = queue.shift(); project !== undefined; project = queue.shift()) {
    const result = await check(project);
    if (result.code === 0) continue;
    failed.push(result.project);
    process.stdout.write(`\n== tsc --noEmit -p ${result.project}\n${result.output}`);
  }
}
await Promise.all(Array.from({ length: Math.min(availableParallelism(), projects.length) }, worker));
if (failed.length > 0) {
  console.error(`typecheck: type errors in ${failed.join(', ')}`);
  process.exit(1);
}
console.log(`typecheck: ${projects.length} projects, no type errors`);
