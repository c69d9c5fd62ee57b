// The worker thread of `openPgliteInWorker` (pglite-worker.ts): owns one PGlite and runs what the main
// thread sends, in arrival order. PGlite itself serialises statements and transactions (a statement
// waits while a transaction is open), so the single-writer behaviour is the in-thread driver's.
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import type { ThreadReply, ThreadRequest, ThreadStart } from './pglite-protocol.js';

if (parentPort === null) throw new Error('pglite-thread.ts runs only as a worker thread');
const port: MessagePort = parentPort;
const start = workerData as ThreadStart;

/** The own fields of a database error (SQLSTATE `code`, detail, constraint...), which a clone would drop. */
function serialiseError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { message: String(error) };
  return { ...(error as unknown as Record<string, unknown>), name: error.name, message: error.message };
}

const reply = (message: ThreadReply) => port.postMessage(message);

class Rollback extends Error {}

const pglite = await PGlite.create(
  start.dataDir !== undefined
    ? { dataDir: start.dataDir }
    : start.snapshot !== undefined
      ? { loadDataDir: start.snapshot }
      : {},
);
interface OpenTransaction {
  tx: Transaction;
  /** Commits (true) or rolls back (false); `finished` settles once PGlite has done so. */
  end: (commit: boolean) => void;
  finished: Promise<void>;
}
const transactions = new Map<number, OpenTransaction>();
let nextTransaction = 1;

async function handle(request: ThreadRequest): Promise<void> {
  const target = (tx: number | undefined) => {
    if (tx === undefined) return pglite;
    const open = transactions.get(tx);
    if (open === undefined) throw new Error(`transaction ${tx} is not open`);
    return open.tx;
  };
  switch (request.op) {
    case 'query': {
      const result = await target(request.tx).query(request.sql, request.params);
      reply({ id: request.id, rows: result.rows });
      return;
    }
    case 'exec':
      await target(request.tx).exec(request.sql);
      reply({ id: request.id, rows: [] });
      return;
    case 'begin': {
      const tx = nextTransaction++;
      let opened: (open: Omit<OpenTransaction, 'finished'>) => void = () => {};
      const started = new Promise<Omit<OpenTransaction, 'finished'>>((resolve) => {
        opened = resolve;
      });
      const finished = pglite
        .transaction(
          (handle) =>
            new Promise<void>((resolve, reject) =>
              opened({ tx: handle, end: (commit) => (commit ? resolve() : reject(new Rollback())) }),
            ),
        )
        .then(
          () => {},
          (error: unknown) => {
            if (!(error instanceof Rollback)) throw error;
          },
        );
      // A transaction that cannot start (the database closed) fails the begin with PGlite's error.
      const open = await Promise.race([started, finished.then(() => undefined)]);
      if (open === undefined) throw new Error('the transaction ended before it started');
      transactions.set(tx, { ...open, finished });
      reply({ id: request.id, rows: [], tx });
      return;
    }
    case 'end': {
      const open = transactions.get(request.tx);
      if (open === undefined) throw new Error(`transaction ${request.tx} is not open`);
      transactions.delete(request.tx);
      open.end(request.commit);
      await open.finished;
      reply({ id: request.id, rows: [] });
      return;
    }
    case 'close':
      await pglite.close();
      reply({ id: request.id, rows: [] });
      port.close();
      return;
  }
}
port.on('message', (request: ThreadRequest) => {
  handle(request).catch((error: unknown) => reply({ id: request.id, error: serialiseError(error) }));
});
reply({ id: 0, rows: [] });
