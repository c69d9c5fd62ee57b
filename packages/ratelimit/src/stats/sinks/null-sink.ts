import type { StatSink } from '../sink.js';

/** DISABLE_STATS=true: the store still counts (debug endpoints read it) but nothing is sent. */
export class NullSink implements StatSink {
  flush(): void {}
  async close(): Promise<void> {}
}
