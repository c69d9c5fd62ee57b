#!/usr/bin/env node
// `npm test`'s first step: `npm run lint` and `npm run typecheck` side by side, each one's output printed
// whole when it ends, and a failure of either fails the step. One after the other they took 23 s of a
// run's wall time; lint is mostly one thread (biome, dependency-cruiser), so a core was idle for most of it.
import { spawn } from 'node:child_process';

function run(script) {
  return new Promise((done) => {
    const child = spawn('npm', ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('close', (code) => {
      process.stdout.write(`== npm run ${script}\n${output}`);
      done(code === 0 ? undefined : script);
    });
  });
}

const failed = (await Promise.all([run('lint'), run('typecheck')])).filter((script) => script !== undefined);
if (failed.length > 0) {
  console.error(`npm test: ${failed.join(' and ')} failed`);
  process.exit(1);
}
