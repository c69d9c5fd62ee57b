import type { StatSink, StatSnapshot } from '../sink.js';
import { CounterDeltas } from './counter-deltas.js';
import { flushedStats } from './statsd-lines.js';
import { type Tags, tagSuffix } from './tags.js';

export interface LogSinkOptions {
  readonly extraTags?: Tags;
  /**
   * Called with each JSON line. Without it the lines of a flush go to stderr, like gostats'
   * logging sink, in one write: a flush under load holds up to 100,000 timer samples, and a
   * write per line would queue as many writes (and their buffers) on a slow stderr pipe.
   */
  readonly write?: (line: string) => void;
  readonly now?: () => number;
}

/**
 * USE_STATSD=false: one JSON line per flushed stat in gostats' logging-sink shape, e.g.
 * `{"level":"debug","ts":1700000000.123456,"logger":"gostats.loggingsink","msg":"flushing counter",
 * "json":{"name":"...","type":"counter","value":"1.000000"}}`.
 */
export class LogSink implements StatSink {
  readonly #deltas = new CounterDeltas();
  readonly #suffix: string;
  readonly #write: ((line: string) => void) | undefined;
  readonly #now: () => number;

  constructor(options: LogSinkOptions = {}) {
    this.#suffix = tagSuffix(options.extraTags ?? {});
    this.#write = options.write;
    this.#now = options.now ?? Date.now;
  }

  flush(snapshot: StatSnapshot): void {
    const ts = (this.#now() / 1000).toFixed(6);
    let text = '';
    for (const stat of flushedStats(snapshot, this.#deltas)) {
      const json = JSON.stringify({
        name: `${stat.name}${this.#suffix}`,
        type: stat.type,
        value: stat.value.toFixed(6),
      });
      const line = `{"level":"debug","ts":${ts},"logger":"gostats.loggingsink","msg":"flushing ${stat.type}","json":${json}}\n`;
      if (this.#write) this.#write(line);
      else text += line;
    }
    if (text !== '') process.stderr.write(text);
  }

  async close(): Promise<void> {}
}
