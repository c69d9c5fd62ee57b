import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Gauge, Histogram, Registry, Summary } from 'prom-client';
import { SettingsError } from '../../../errors.js';
import type { StatSink, StatSnapshot } from '../../sink.js';
import { CounterDeltas } from '../counter-deltas.js';
import type { SinkLogger } from '../sink-logger.js';
import { flushedStats } from '../statsd-lines.js';
import type { Tags } from '../tags.js';
import type { MappedMetric, StatsdMapper, StatType } from './mapper.js';

export interface PrometheusOptions {
  /** PROMETHEUS_ADDR, `host:port`; an empty host (`:9090`) listens on every interface. */
  readonly addr: string;
  /** PROMETHEUS_PATH. */
  readonly path: string;
  readonly mapper: StatsdMapper;
  /** EXTRA_TAGS, exposed as labels on every metric. */
  readonly extraTags?: Tags;
  readonly logger?: SinkLogger;
}

type Metric = Counter | Gauge | Histogram | Summary;

interface Registered {
  readonly type: StatType;
  readonly labelNames: string;
  readonly metric: Metric;
}

/** Splits PROMETHEUS_ADDR the way Go's net.Listen reads it. */
export function parseListenAddress(setting: string, addr: string): { host: string; port: number } {
  const colon = addr.lastIndexOf(':');
  const port = Number(addr.slice(colon + 1));
  if (colon < 0 || !Number.isInteger(port) || port < 0 || port > 65535 || addr.slice(colon + 1) === '') {
    throw new SettingsError(setting, `'${addr}' is not a host:port address (e.g. :9090 or 127.0.0.1:9090)`);
  }
  const host = addr.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
  return { host: host === '' ? '0.0.0.0' : host, port };
}

/**
 * Pull stats: each flush folds the store's snapshot into prom-client metrics named by the
 * statsd_exporter mapper, and an HTTP server exposes them at PROMETHEUS_ADDR + PROMETHEUS_PATH.
 */
export class PrometheusSink implements StatSink {
  readonly registry = new Registry();
  readonly #options: PrometheusOptions;
  readonly #deltas = new CounterDeltas();
  readonly #metrics = new Map<string, Registered>();
  readonly #conflicts = new Set<string>();
  readonly #server: Server;

  constructor(options: PrometheusOptions) {
    this.#options = options;
    this.#server = createServer((request, response) => {
      const path = (request.url ?? '/').split('?')[0];
      if (request.method !== 'GET' || path !== options.path) {
        response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('404 page not found\n');
        return;
      }
      this.registry.metrics().then(
        (body) => response.writeHead(200, { 'content-type': this.registry.contentType }).end(body),
        (error: Error) => response.writeHead(500).end(`${error.message}\n`),
      );
    });
  }

  /** Starts the scrape endpoint; resolves with the bound address (useful with port 0). */
  async listen(): Promise<AddressInfo> {
    const { host, port } = parseListenAddress('PROMETHEUS_ADDR', this.#options.addr);
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, host, () => {
        this.#server.off('error', reject);
        resolve();
      });
    });
    return this.#server.address() as AddressInfo;
  }

  /** The bound scrape address once listening. */
  address(): AddressInfo | undefined {
    const address = this.#server.address();
    return address && typeof address === 'object' ? address : undefined;
  }

  flush(snapshot: StatSnapshot): void {
    for (const stat of flushedStats(snapshot, this.#deltas)) {
      const mapped = this.#options.mapper.map(stat.name, stat.type);
      if (!mapped) continue;
      const labels = { ...this.#options.extraTags, ...mapped.labels };
      const metric = this.#metricFor(mapped, stat.type, labels);
      if (!metric) continue;
      if (metric instanceof Counter) metric.inc(labels, stat.value);
      else if (metric instanceof Gauge) metric.set(labels, stat.value);
      else metric.observe(labels, stat.value);
    }
  }

  #metricFor(mapped: MappedMetric, type: StatType, labels: Record<string, string>): Metric | undefined {
    const labelNames = Object.keys(labels).sort();
    const existing = this.#metrics.get(mapped.name);
    if (existing) {
      if (existing.type === type && existing.labelNames === labelNames.join(',')) return existing.metric;
      // Like statsd_exporter: a second shape for one metric name would corrupt the series, so it is dropped.
      if (!this.#conflicts.has(mapped.name)) {
        this.#conflicts.add(mapped.name);
        this.#options.logger?.warn(
          'prometheus sink: a stat maps to a metric that already exists with another type or label set; it is dropped. Adjust PROMETHEUS_MAPPER_YAML.',
          { metric: mapped.name, labels: labelNames },
        );
      }
      return undefined;
    }
    const common = {
      name: mapped.name,
      help: mapped.help || `statsd metric ${mapped.name}`,
      labelNames,
      registers: [this.registry],
    };
    let metric: Metric;
    if (type === 'counter') metric = new Counter(common);
    else if (type === 'gauge') metric = new Gauge(common);
    else if (mapped.observerType === 'histogram') {
      metric = new Histogram(mapped.buckets ? { ...common, buckets: [...mapped.buckets] } : common);
    } else metric = new Summary(common);
    this.#metrics.set(mapped.name, { type, labelNames: labelNames.join(','), metric });
    return metric;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      if (!this.#server.listening) return resolve();
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }
}
