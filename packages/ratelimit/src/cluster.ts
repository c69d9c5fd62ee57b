import cluster, { type Worker } from 'node:cluster';
import type { Logger } from './log.js';

/** Worker → primary: the worker's servers are listening. */
const READY = 'ratelimit:ready';

/** True in a process that should run the servers itself (no cluster, or a cluster worker). */
export function runsServers(workers: number): boolean {
  return workers <= 1 || cluster.isWorker;
}

/** Called by a worker once its servers listen, so the primary knows startup succeeded. */
export function reportReady(): void {
  if (cluster.isWorker) process.send?.(READY);
}

/**
 * The cluster primary (RATELIMIT_WORKERS > 1): forks the workers, which share the HTTP, gRPC and
 * debug ports through node:cluster, and serves nothing itself. A worker that dies during startup
 * stops the whole cluster (exit 1, its error is on stderr); a worker that dies later is replaced.
 * SIGTERM, SIGINT and SIGHUP go to every worker, which shut down gracefully; then the primary exits 0.
 */
export function runPrimary(workers: number, log: Logger): void {
  let stopping = false;
  const ready = new WeakSet<Worker>();

  const fork = () => {
    const worker = cluster.fork();
    worker.on('message', (message: unknown) => {
      if (message === READY) ready.add(worker);
    });
  };

  cluster.on('exit', (worker, code, signal) => {
    const how = signal ? `signal ${signal}` : `code ${code}`;
    // process.exit() keeps an exit code set earlier (1 after a failed startup).
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit();
      return;
    }
    if (!ready.has(worker)) {
      log.error(`worker ${worker.process.pid} exited with ${how} during startup; stopping the cluster`);
      stopping = true;
      for (const other of Object.values(cluster.workers ?? {})) other?.process.kill('SIGTERM');
      process.exitCode = 1;
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit();
      return;
    }
    log.warn(`worker ${worker.process.pid} exited with ${how}; starting a replacement`);
    fork();
  });

  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      log.warn(`received ${signal}, stopping ${workers} workers gracefully`);
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
    });
  }

  log.info(`starting ${workers} workers`, { pid: process.pid });
  for (let i = 0; i < workers; i++) fork();
}
