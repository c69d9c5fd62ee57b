import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Database } from '../db/database.js';
import { AppError } from '../errors.js';
import { mayReadOperationalData } from './access.js';

export type LoginOutcome = 'success' | 'failure';

/**
 * The service's Prometheus metrics, in a registry of its own (several apps in one test process must
 * not share one): request durations by route template and status (Spring's
 * `http_server_requests_seconds`), database connections, live sessions, login outcomes, and the notice
 * outbox by status.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests = new Histogram({
    name: 'http_server_requests_seconds',
    help: 'HTTP request durations by method, route template (uri) and status',
    labelNames: ['method', 'uri', 'status', 'outcome'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });
  private readonly logins = new Counter({
    name: 'books_logins_total',
    help: 'Completed sign-in attempts by outcome',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  constructor(
    db: Database,
    countActiveSessions: () => Promise<number>,
    /** Notices of the outbox by status (pending, sent, failed, skipped). */
    countNotices: () => Promise<Record<string, number>>,
  ) {
    collectDefaultMetrics({ register: this.registry });
    new Gauge({
      name: 'books_db_connections',
      help: 'Database connections by state (PGlite: one in-process connection)',
      labelNames: ['state'] as const,
      registers: [this.registry],
      collect() {
        const stats = db.connections();
        this.set({ state: 'max' }, stats.max);
        this.set({ state: 'open' }, stats.open);
        this.set({ state: 'idle' }, stats.idle);
        this.set({ state: 'waiting' }, stats.waiting);
      },
    });
    new Gauge({
      name: 'books_sessions_active',
      help: 'Sessions that have not reached their idle timeout',
      registers: [this.registry],
      async collect() {
        this.set(await countActiveSessions());
      },
    });
    new Gauge({
      name: 'books_notices',
      help: 'Notices of the outbox by status: a growing pending count means delivery lags, failed ones wait for an admin',
      labelNames: ['status'] as const,
      registers: [this.registry],
      async collect() {
        const counts = await countNotices();
        for (const status of ['pending', 'sent', 'failed', 'skipped'])
          this.set({ status }, counts[status] ?? 0);
      },
    });
  }

  recordLogin = (outcome: LoginOutcome): void => {
    this.logins.inc({ outcome });
  };

  recordRequest(method: string, uri: string, status: number, seconds: number): void {
    const outcome =
      status >= 500
        ? 'SERVER_ERROR'
        : status >= 400
          ? 'CLIENT_ERROR'
          : status >= 300
            ? 'REDIRECTION'
            : 'SUCCESS';
    this.requests.observe({ method, uri, status: String(status), outcome }, seconds);
  }
}

export interface PrometheusOptions {
  metrics: Metrics;
  metricsToken: string | undefined;
}

/**
 * Times every request under its route template (`/books/:id`, never the concrete path, so ids do not
 * explode the label set; unknown routes count as `UNKNOWN`) and serves `/actuator/prometheus` to
 * admins and to scrapers with the METRICS_TOKEN bearer token.
 */
export async function prometheusRoutes(app: FastifyInstance, { metrics, metricsToken }: PrometheusOptions) {
  app.addHook('onResponse', (request, reply, done) => {
    const uri = request.routeOptions.url ?? 'UNKNOWN';
    metrics.recordRequest(request.method, uri, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  app.get('/actuator/prometheus', async (request, reply) => {
    if (!mayReadOperationalData(request, metricsToken)) {
      throw new AppError(
        request.user === null ? 'unauthenticated' : 'forbidden',
        'METRICS_ACCESS_DENIED',
        'Metrics are for ROLE_ADMIN, or a scraper sending Authorization: Bearer <METRICS_TOKEN>.',
      );
    }
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}
