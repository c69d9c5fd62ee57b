import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const tsx = fileURLToPath(new URL('../../../../node_modules/.bin/tsx', import.meta.url));

export interface BenchServer {
  port: number;
  stop(): Promise<void>;
}

const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/** Starts `bench/servers/<name>.ts` in its own process and waits for its port announcement. */
export function startBenchServer(name: 'service' | 'baseline', env: NodeJS.ProcessEnv): Promise<BenchServer> {
  const script = fileURLToPath(new URL(`./${name}.ts`, import.meta.url));
  const child = spawn(tsx, [script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5000).unref();
    }).finally(() => children.delete(child));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) =>
      reject(new Error(`bench ${name} server exited (${code}) before listening:\n${stderr}`)),
    );
    createInterface({ input: child.stdout }).on('line', (line) => {
      // Only the announcement is JSON starting with "listening"; anything else is ordinary output.
      if (!line.startsWith('{"listening":')) return;
      resolve({ port: (JSON.parse(line) as { listening: number }).listening, stop });
    });
  });
}
