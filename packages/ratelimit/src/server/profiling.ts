import { Session } from 'node:inspector';

/** One inspector session at a time: a second profile while one runs is refused. */
let busy = false;

export class ProfilerBusyError extends Error {
  readonly code = 'RATELIMIT_PROFILER_BUSY';
  constructor() {
    super('a profile is already being recorded; retry when it has finished');
  }
}

async function withSession<T>(
  run: (post: (method: string, params?: object) => Promise<unknown>, session: Session) => Promise<T>,
): Promise<T> {
  if (busy) throw new ProfilerBusyError();
  busy = true;
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, params ?? {}, (error, result) => (error ? reject(error) : resolve(result))),
    );
  try {
    return await run(post, session);
  } finally {
    session.disconnect();
    busy = false;
  }
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A V8 CPU profile of the next `seconds` (a `.cpuprofile`, readable by Chrome DevTools). */
export function cpuProfile(seconds: number): Promise<string> {
  return withSession(async (post) => {
    await post('Profiler.enable');
    await post('Profiler.start');
    await delay(seconds * 1000);
    const result = (await post('Profiler.stop')) as { profile: unknown };
    return JSON.stringify(result.profile);
  });
}

/** A V8 heap snapshot (a `.heapsnapshot`). Taking it pauses the process while the heap is walked. */
export function heapSnapshot(): Promise<string> {
  return withSession(async (post, session) => {
    const chunks: string[] = [];
    const onChunk = (message: { params: { chunk: string } }) => chunks.push(message.params.chunk);
    session.on('HeapProfiler.addHeapSnapshotChunk', onChunk);
    await post('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
    return chunks.join('');
  });
}

/** A Chrome trace (trace-event JSON) of the next `seconds`, with V8 and Node categories. */
export function executionTrace(seconds: number): Promise<string> {
  return withSession(async (post, session) => {
    const events: unknown[] = [];
    session.on('NodeTracing.dataCollected', (message: { params: { value: unknown[] } }) =>
      events.push(...message.params.value),
    );
    await post('NodeTracing.start', {
      traceConfig: { includedCategories: ['v8', 'node', 'node.async_hooks'] },
    });
    await delay(seconds * 1000);
    const complete = new Promise((resolve) => session.once('NodeTracing.tracingComplete', resolve));
    await post('NodeTracing.stop');
    await complete;
    return JSON.stringify({ traceEvents: events });
  });
}
