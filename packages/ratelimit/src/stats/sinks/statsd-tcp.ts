import { connect, type Socket } from 'node:net';
import type { StatSink, StatSnapshot } from '../sink.js';
import { CounterDeltas } from './counter-deltas.js';
import type { SinkLogger } from './sink-logger.js';
import { flushedStats, statsdType } from './statsd-lines.js';
import { type Tags, tagSuffix } from './tags.js';

export interface StatsdTcpOptions {
  readonly host: string;
  readonly port: number;
  readonly extraTags?: Tags;
  readonly logger?: SinkLogger;
}

// Lines that pile up while statsd is unreachable are dropped past this size, like gostats' bounded buffer.
const maxPendingBytes = 1 << 20;

/**
 * Plain statsd over TCP (the reference's default sink): `name:value|c`, `|g` and `|ms` lines, counters
 * as deltas since the previous flush. The connection is opened lazily and re-opened after a failure.
 */
export class StatsdTcpSink implements StatSink {
  readonly #options: StatsdTcpOptions;
  readonly #deltas = new CounterDeltas();
  readonly #suffix: string;
  #socket: Socket | undefined;
  #connected = false;
  #pending = '';
  #closed = false;

  constructor(options: StatsdTcpOptions) {
    this.#options = options;
    this.#suffix = tagSuffix(options.extraTags ?? {});
  }

  flush(snapshot: StatSnapshot): void {
    if (this.#closed) return;
    let text = '';
    for (const stat of flushedStats(snapshot, this.#deltas)) {
      text += `${stat.name}${this.#suffix}:${stat.value}|${statsdType(stat.type)}\n`;
    }
    if (text === '') return;
    if (this.#connected && this.#socket) {
      this.#socket.write(text);
      return;
    }
    if (this.#pending.length + text.length <= maxPendingBytes) this.#pending += text;
    this.#connect();
  }

  #connect(): void {
    if (this.#socket) return;
    const { host, port } = this.#options;
    const socket = connect({ host, port });
    this.#socket = socket;
    socket.setNoDelay(true);
    socket.on('connect', () => {
      this.#connected = true;
      if (this.#pending !== '') socket.write(this.#pending);
      this.#pending = '';
    });
    socket.on('error', (error) => {
      this.#options.logger?.warn(
        `statsd sink: cannot reach ${host}:${port}; stats are dropped until it accepts connections`,
        { err: error.message },
      );
    });
    socket.on('close', () => {
      if (this.#socket === socket) {
        this.#socket = undefined;
        this.#connected = false;
      }
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    const socket = this.#socket;
    this.#socket = undefined;
    if (!socket) return;
    await new Promise<void>((resolve) => {
      if (socket.destroyed) return resolve();
      socket.once('close', () => resolve());
      socket.end();
      // A peer that never acknowledges the FIN must not hold shutdown hostage.
      setTimeout(() => socket.destroy(), 1000).unref();
    });
  }
}
