import { Worker } from 'node:worker_threads';
import type { Database, Queryable } from './database.js';
import type { ThreadAnswer, ThreadReply, ThreadRequest, ThreadStart } from './pglite-protocol.js';

type Request = ThreadRequest extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never;

/**
 * The thread running pglite-thread: the compiled file in dist/; under tsx (a checkout, the tests), the
 * TypeScript source, after registering tsx's loader in the thread (a worker thread does not inherit it).
 */
function startThread(start: ThreadStart): Worker {
  if (!import.meta.url.endsWith('.ts')) {
    return new Worker(new URL('./pglite-thread.js', import.meta.url), { workerData: start });
  }
  const loader = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const script = JSON.stringify(new URL('./pglite-thread.ts', import.meta.url).href);
  return new Worker(`import(${loader}).then((tsx) => { tsx.register(); return import(${script}); })`, {
    eval: true,
    workerData: start,
  });
}

/**
 * The Database interface over a PGlite that runs in a worker thread (pglite-thread.ts), so its
 * statements (WASM PostgreSQL, and the parsing of their results) no longer hold the server's event
 * loop: requests are parsed, routed and answered while a statement runs. Statements and transactions
 * still run one at a time, in the order they arrive, as PGlite runs them in process; rows and
 * parameters cross the thread boundary by structured clone (Dates, arrays, bytes survive).
 */
export async function openPgliteInWorker(start: ThreadStart): Promise<Database> {
  const worker = startThread(start);
  const pending = new Map<
    number,
    { resolve: (answer: ThreadAnswer) => void; reject: (error: Error) => void }
  >();
  let nextId = 1;
  let failure: Error | undefined;
  const failAll = (error: Error) => {
    failure = error;
    for (const { reject } of pending.values()) reject(error);
    pending.clear();
  };
  const ready = new Promise<void>((resolve, reject) => {
    pending.set(0, { resolve: () => resolve(), reject });
  });
  worker.on('message', (message: ThreadReply) => {
    const waiting = pending.get(message.id);
    if (waiting === undefined) return;
    pending.delete(message.id);
    if ('error' in message) {
      const { message: text, ...fields } = message.error;
      waiting.reject(Object.assign(new Error(String(text)), fields));
    } else waiting.resolve(message);
  });
  worker.on('error', (error) => failAll(error));
  worker.on('exit', (code) => failAll(new Error(`the PGlite worker thread exited (${code})`)));

  const call = (request: Request): Promise<ThreadAnswer> => {
    if (failure !== undefined) return Promise.reject(failure);
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.postMessage({ ...request, id });
    });
  };
  const queryable = (tx?: number): Queryable => ({
    async query<Row>(sql: string, params: readonly unknown[] = []) {
      return (await call({ op: 'query', sql, params: [...params], ...(tx === undefined ? {} : { tx }) }))
        .rows as Row[];
    },
    async exec(sql: string) {
      await call({ op: 'exec', sql, ...(tx === undefined ? {} : { tx }) });
    },
  });

  try {
    await ready;
  } catch (error) {
    await worker.terminate();
    throw error;
  }
  return {
    driver: 'pglite',
    ...queryable(),
    connections: () => ({ max: 1, open: 1, idle: 0, waiting: pending.size }),
    async transaction(work) {
      const { tx } = await call({ op: 'begin' });
      if (tx === undefined) throw new Error('the PGlite worker opened no transaction');
      let result: Awaited<ReturnType<typeof work>>;
      try {
        result = await work(queryable(tx));
      } catch (error) {
        await call({ op: 'end', tx, commit: false });
        throw error;
      }
      await call({ op: 'end', tx, commit: true });
      return result;
    },
    async close() {
      await call({ op: 'close' });
      await worker.terminate();
    },
  };
}
