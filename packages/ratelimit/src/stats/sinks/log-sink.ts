import type { StatSink, StatSnapshot } from '../sink.js';
import { CounterDeltas } from './counter-deltas.js';
import { forEachFlushedStat } from './statsd-lines.js';
import { type Tags, tagSuffix } from './tags.js';

/** Lines are gathered into writes of about this many characters (64 KiB of ASCII). */
const STDERR_CHUNK_CHARS = 64 * 1024;

export interface LogSinkOptions {
  readonly extraTags?: Tags;
  /**
   * Called with each JSON line. Without it the lines go to stderr, like gostats' logging sink,
   * in writes of about 64 KiB: a flush under load holds up to 100,000 timer samples, and a write
   * per line costs a system call each (or a queued write and its buffer on a slow pipe).
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
    const head = `{"level":"debug","ts":${(this.#now() / 1000).toFixed(6)},"logger":"gostats.loggingsink","msg":"flushing `;
    // The samples of one timer share everything up to the value, so that part is built once
    // per stat name: JSON.stringify per line cost more than the rest of a flush together.
    let lastName = '';
    let lastType = '';
    let prefix = '';
    let text = '';
    forEachFlushedStat(snapshot, this.#deltas, (name, type, value) => {
      if (name !== lastName || type !== lastType) {
        lastName = name;
        lastType = type;
        prefix = `${head}${type}","json":{"name":${JSON.stringify(`${name}${this.#suffix}`)},"type":"${type}","value":"`;
      }
      // toFixed never yields a character JSON would escape.
      const line = `${prefix}${value.toFixed(6)}"}}\n`;
      if (this.#write) {
        this.#write(line);
        return;
      }
      text += line;
      if (text.length >= STDERR_CHUNK_CHARS) {
        process.stderr.write(text);
        text = '';
      }
    });
    if (text !== '') process.stderr.write(text);
  }

  async close(): Promise<void> {}
}
