import { createSocket, type Socket } from 'node:dgram';
import type { StatSink, StatSnapshot } from '../sink.js';
import { CounterDeltas } from './counter-deltas.js';
import { type MogrifierSpec, Mogrifiers } from './mogrifier.js';
import type { SinkLogger } from './sink-logger.js';
import { flushedStats, statsdType } from './statsd-lines.js';
import type { Tags } from './tags.js';

export interface DogStatsdOptions {
  readonly host: string;
  readonly port: number;
  readonly extraTags?: Tags;
  readonly mogrifiers?: readonly MogrifierSpec[];
  readonly logger?: SinkLogger;
}

// datadog-go's default UDP payload limit: stays under a typical MTU.
const maxDatagramBytes = 1432;

/**
 * DogStatsD over UDP (datadog-go's default transport): `name:value|c|#k:v,...`. EXTRA_TAGS become
 * real tags instead of name suffixes, and mogrifiers turn dotted names into a name plus tags.
 */
export class DogStatsdSink implements StatSink {
  readonly #options: DogStatsdOptions;
  readonly #deltas = new CounterDeltas();
  readonly #mogrifiers: Mogrifiers;
  readonly #extraTags: string[];
  readonly #socket: Socket;

  constructor(options: DogStatsdOptions) {
    this.#options = options;
    this.#mogrifiers = new Mogrifiers(options.mogrifiers ?? []);
    this.#extraTags = Object.entries(options.extraTags ?? {}).map(([key, value]) => `${key}:${value}`);
    this.#socket = createSocket(options.host.includes(':') ? 'udp6' : 'udp4');
    this.#socket.on('error', (error) => {
      options.logger?.warn(`dogstatsd sink: cannot send to ${options.host}:${options.port}`, {
        err: error.message,
      });
    });
    this.#socket.unref();
  }

  flush(snapshot: StatSnapshot): void {
    const lines = flushedStats(snapshot, this.#deltas).map((stat) => {
      const { name, tags } = this.#mogrifiers.apply(stat.name);
      const allTags = [...this.#extraTags, ...tags];
      const tagPart = allTags.length > 0 ? `|#${allTags.join(',')}` : '';
      return `${name}:${stat.value}|${statsdType(stat.type)}${tagPart}`;
    });
    let packet = '';
    for (const line of lines) {
      if (packet !== '' && packet.length + 1 + line.length > maxDatagramBytes) {
        this.#send(packet);
        packet = '';
      }
      packet = packet === '' ? line : `${packet}\n${line}`;
    }
    if (packet !== '') this.#send(packet);
  }

  #send(packet: string): void {
    this.#socket.send(packet, this.#options.port, this.#options.host);
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.#socket.close(() => resolve()));
  }
}
