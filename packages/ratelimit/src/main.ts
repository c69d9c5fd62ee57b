import { randomUUID } from 'node:crypto';
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServerCredentials } from '@grpc/grpc-js';
import type { DemandStore } from './backends/demand.js';
import { createDemandStore, createStore, storeCapabilities } from './backends/index.js';
import type { CounterStore } from './backends/store.js';
import { ConfigHolder } from './config/loader.js';
import { type Clock, systemClock } from './limiter/clock.js';
import { RateLimiter } from './limiter/limiter.js';
import { LocalOverLimitCache } from './limiter/local-cache.js';
import { createLogger, type Logger } from './log.js';
import { tracedStore } from './observability/traced-store.js';
import { startTracing } from './observability/tracing.js';
import { createConfigProvider } from './provider/index.js';
import type { ConfigProvider } from './provider/provider.js';
import { createDebugServer } from './server/debug.js';
import { addGrpcServices, endHealthWatches } from './server/grpc.js';
import { grpcJsTransport } from './server/grpc-js-transport.js';
import type { GrpcTransport } from './server/grpc-transport.js';
import { H2GrpcServer } from './server/h2/server.js';
import { HealthModel } from './server/health.js';
import { createHttpServer } from './server/http.js';
import { addQuotaService } from './server/rlqs.js';
import { ReloadingServerCredentials } from './server/tls/reloading-credentials.js';
import { grpcServerCredentials, tlsReloadLog } from './server/tls/server-credentials.js';
import { QuotaService } from './service/quota-service.js';
import { RateLimitService } from './service/ratelimit-service.js';
import type { Settings } from './settings.js';
import { createStatSink } from './stats/sinks/select.js';
import { StatStore } from './stats/store.js';

/** Parts a caller may supply instead of the ones the settings select (tests, other providers). */
export interface StartOverrides {
  readonly store?: CounterStore;
  /** The RLQS demand store; defaults to the one BACKEND_TYPE selects. */
  readonly demandStore?: DemandStore;
  readonly clock?: Clock;
  readonly log?: Logger;
  /** Defaults to the provider CONFIG_TYPE selects (FILE or GRPC_XDS_SOTW). */
  readonly provider?: ConfigProvider;
  /** GRPC_TRANSPORT=grpc-js only: defaults to what GRPC_SERVER_USE_TLS and friends select. */
  readonly grpcCredentials?: ServerCredentials;
}

export interface RunningServer {
  readonly ports: { readonly http: number; readonly grpc: number; readonly debug: number };
  readonly stats: StatStore;
  readonly health: HealthModel;
  readonly config: ConfigHolder;
  readonly service: RateLimitService;
  readonly localCache: LocalOverLimitCache | undefined;
  /** The Rate Limit Quota Service, when RLQS_ENABLED. */
  readonly quota: QuotaService | undefined;
  /** SIGTERM behaviour: health fails at once; after SHUTDOWN_DRAIN_DURATION the servers stop gracefully. */
  shutdown(): Promise<void>;
  /** Stops everything now (tests). */
  close(): Promise<void>;
}

/**
 * Wires the service together and opens the three servers. With FORCE_START_WITHOUT_INITIAL_CONFIG
 * unset, the servers open only after the first config load has been attempted.
 */
export async function startServer(
  settings: Settings,
  overrides: StartOverrides = {},
): Promise<RunningServer> {
  // What has started so far, stopped in reverse order: by close(), and by a failed start.
  const closers = new Closers();
  try {
    return await start(settings, overrides, closers);
  } catch (error) {
    // The start's own error is the one to report; a part that also fails to stop adds nothing.
    await closers.closeAll(false).catch(() => undefined);
    throw error;
  }
}

async function start(
  settings: Settings,
  overrides: StartOverrides,
  closers: Closers,
): Promise<RunningServer> {
  const clock = overrides.clock ?? systemClock;
  const log = overrides.log ?? createLogger(settings.log.level, settings.log.format);
  const stats = new StatStore(settings.stats.store);
  closers.push(() => stats.close());
  // Exactly one sink (or none with DISABLE_STATS); a bad stats setting stops startup here.
  stats.addSink(await createStatSink(settings.stats.sink, log));
  const tracing = await startTracing(settings.tracing);
  closers.push(() => tracing.shutdown());
  const untracedStore =
    overrides.store ??
    createStore(settings.backend, {
      stats,
      log,
      now: clock,
      random: (max) => Math.floor(Math.random() * max),
    });
  const perSecondRedis = settings.backend.type === 'redis' && settings.backend.redis.perSecond !== undefined;
  const store = settings.tracing.enabled ? tracedStore(untracedStore, { perSecondRedis }) : untracedStore;
  closers.push(() => store.close());
  const health = new HealthModel(store.kind, settings.config.healthyWithAtLeastOneConfigLoaded);
  store.onHealthChange((healthy) => (healthy ? health.ok(store.kind) : health.fail(store.kind)));
  if (!store.isHealthy()) health.fail(store.kind);

  const localCache =
    settings.localCacheSizeInBytes > 0
      ? new LocalOverLimitCache(settings.localCacheSizeInBytes, clock)
      : undefined;
  if (localCache) stats.addGaugeSource(() => localCache.gauges());

  const config = new ConfigHolder(
    stats,
    log,
    settings.config.mergeDomainConfig,
    storeCapabilities(settings.backend.type),
  );
  config.onLoad((loaded) => stats.setConfigStatKeys(new Set(loaded.rules.map((rule) => rule.fullKey))));
  if (settings.config.healthyWithAtLeastOneConfigLoaded) {
    config.onLoad((loaded) => (loaded.domains.size > 0 ? health.ok('config') : health.fail('config')));
  }
  const limiter = new RateLimiter(store, localCache, stats, settings.limiter, clock);
  const service = new RateLimitService(config, limiter, stats, settings.service);

  const provider = overrides.provider ?? (await createConfigProvider(settings.config, log));
  const grpcServer = createGrpcTransport(settings, overrides, log, closers);
  addGrpcServices(grpcServer, service, health, stats, settings.grpc.maxDescriptors);
  const quota = settings.rlqs.enabled
    ? startQuotaService(settings, { config, stats, log, grpcServer, closers, clock }, overrides.demandStore)
    : undefined;
  const httpServer = createHttpServer(service, health, log, settings.httpClientLimits);
  const debugServer = createDebugServer({ config: () => config.current, stats }, settings.httpClientLimits);
  // The servers and the provider stop together: a graceful stop lets in-flight calls finish.
  closers.push((graceful) =>
    Promise.all([
      stopGrpc(grpcServer, graceful),
      stopHttp(httpServer, graceful),
      stopHttp(debugServer, false),
      provider.stop(),
    ]).then(() => undefined),
  );
  // Run before the servers stop: a graceful stop waits for open calls, and quota streams stay open.
  if (quota) closers.push(() => quota.stop());

  // With FORCE_START_WITHOUT_INITIAL_CONFIG the provider does not wait for its first config, but a
  // source that cannot start at all (an unreadable config directory, xDS TLS files) still stops this.
  await provider.start(config.apply);

  const grpcAddress = settings.grpc.uds
    ? `unix:${settings.grpc.uds}`
    : joinHostPort(settings.grpc.host, settings.grpc.port);
  const grpcPort = await grpcServer.bind(grpcAddress);
  const ports = {
    grpc: grpcPort,
    http: await listen(httpServer, settings.http.host, settings.http.port),
    debug: await listen(debugServer, settings.debug.host, settings.debug.port),
  };
  if (!settings.stats.sink.disableStats) stats.start(settings.stats.flushIntervalMs);
  log.info('ratelimit service started', ports);

  let closing: Promise<void> | undefined;
  const stopAll = (graceful: boolean) => {
    closing ??= closers.closeAll(graceful);
    return closing;
  };
  return {
    ports,
    stats,
    health,
    config,
    service,
    localCache,
    quota,
    shutdown: async () => {
      health.fail('sigterm');
      // Quota clients fall back to their own behaviour now, not after a stale assignment runs out.
      quota?.expireAll();
      // Load balancers see the failing health check and stop sending; meanwhile the listeners serve.
      const drainMs = settings.shutdownDrainMs;
      if (drainMs > 0) await new Promise((resolve) => setTimeout(resolve, drainMs));
      return stopAll(true);
    },
    close: () => stopAll(false),
  };
}

/**
 * The Rate Limit Quota Service on the gRPC server, over the same config and (for its demand
 * state) the same store. Its streams end, and its store closes, before the servers stop.
 */
function startQuotaService(
  settings: Settings,
  parts: {
    config: ConfigHolder;
    stats: StatStore;
    log: Logger;
    grpcServer: GrpcTransport;
    closers: Closers;
    clock: Clock;
  },
  demandStore: DemandStore | undefined,
): QuotaService {
  const instanceId = randomUUID();
  const demand =
    demandStore ?? createDemandStore(settings.backend, `${settings.limiter.cacheKeyPrefix}rlqs:`, instanceId);
  parts.closers.push(() => demand.close());
  const quota = new QuotaService(
    parts.config,
    demand,
    parts.stats,
    parts.log,
    { ...settings.rlqs, globalShadowMode: settings.service.globalShadowMode },
    parts.clock,
    instanceId,
  );
  addQuotaService(parts.grpcServer, quota, parts.stats);
  quota.start();
  return quota;
}

/** The gRPC server GRPC_TRANSPORT selects, with the TLS GRPC_SERVER_USE_TLS and friends select. */
function createGrpcTransport(
  settings: Settings,
  overrides: StartOverrides,
  log: Logger,
  closers: Closers,
): GrpcTransport {
  const grpc = settings.grpc;
  if (grpc.transport === 'h2') {
    return new H2GrpcServer({ ...grpc, tlsObserver: grpc.tls && tlsReloadLog(grpc.tls.certFile, log) });
  }
  const credentials = overrides.grpcCredentials ?? grpcServerCredentials(grpc.tls, log);
  if (credentials instanceof ReloadingServerCredentials) closers.push(() => credentials.close());
  return grpcJsTransport(grpc, credentials, log);
}

/** Stop functions of what has started, run last to first; one that fails does not keep the others from running. */
class Closers {
  private readonly stack: Array<(graceful: boolean) => Promise<void> | void> = [];

  push(close: (graceful: boolean) => Promise<void> | void): void {
    this.stack.push(close);
  }

  async closeAll(graceful: boolean): Promise<void> {
    let failure: unknown;
    for (let close = this.stack.pop(); close; close = this.stack.pop()) {
      try {
        await close(graceful);
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure !== undefined) throw failure;
  }
}

function joinHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

function listen(server: HttpServer, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** How long a graceful stop waits for in-flight calls and idle keep-alive clients. */
const GRACEFUL_STOP_MS = 10_000;

function stopGrpc(server: GrpcTransport, graceful: boolean): Promise<void> {
  if (!graceful) {
    server.forceShutdown();
    return Promise.resolve();
  }
  endHealthWatches(server);
  return new Promise((resolve) => {
    const force = setTimeout(() => server.forceShutdown(), GRACEFUL_STOP_MS).unref();
    server.tryShutdown(() => {
      clearTimeout(force);
      resolve();
    });
  });
}

function stopHttp(server: HttpServer, graceful: boolean): Promise<void> {
  // A request that still arrives on a kept-alive connection is answered with `Connection: close`,
  // so a busy keep-alive client does not hold the server open until the force timer.
  server.prependListener('request', (_request, response) => {
    response.shouldKeepAlive = false;
  });
  return new Promise((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), graceful ? GRACEFUL_STOP_MS : 0).unref();
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}
