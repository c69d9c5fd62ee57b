import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Server as GrpcServer, ServerCredentials } from '@grpc/grpc-js';
import { createStore } from './backends/index.js';
import type { CounterStore } from './backends/store.js';
import { ConfigHolder } from './config/loader.js';
import { SettingsError } from './errors.js';
import { type Clock, systemClock } from './limiter/clock.js';
import { RateLimiter } from './limiter/limiter.js';
import { LocalOverLimitCache } from './limiter/local-cache.js';
import { createLogger, type Logger } from './log.js';
import { createConfigProvider } from './provider/index.js';
import type { ConfigProvider } from './provider/provider.js';
import { createDebugServer } from './server/debug.js';
import { bindGrpc, createGrpcServer } from './server/grpc.js';
import { HealthModel } from './server/health.js';
import { createHttpServer } from './server/http.js';
import { RateLimitService } from './service/ratelimit-service.js';
import type { Settings } from './settings.js';
import { StatStore } from './stats/store.js';

/** Parts a caller may supply instead of the ones the settings select (tests, other providers). */
export interface StartOverrides {
  readonly store?: CounterStore;
  readonly clock?: Clock;
  readonly log?: Logger;
  /** Defaults to the FILE provider; the xDS provider plugs in here. */
  readonly provider?: ConfigProvider;
  /** Defaults to insecure; the gRPC TLS work plugs in here. */
  readonly grpcCredentials?: ServerCredentials;
}

export interface RunningServer {
  readonly ports: { readonly http: number; readonly grpc: number; readonly debug: number };
  readonly stats: StatStore;
  readonly health: HealthModel;
  readonly config: ConfigHolder;
  readonly service: RateLimitService;
  readonly localCache: LocalOverLimitCache | undefined;
  /** SIGTERM behaviour: health fails at once, then the servers stop gracefully. */
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
  if (settings.grpcTls.enabled && !overrides.grpcCredentials) {
    // Never fall back to plaintext when TLS was asked for.
    throw new SettingsError(
      'GRPC_SERVER_USE_TLS',
      'gRPC TLS is not available in this build yet; unset it or pass grpcCredentials to startServer',
    );
  }
  const clock = overrides.clock ?? systemClock;
  const log = overrides.log ?? createLogger(settings.log.level, settings.log.format);
  const stats = new StatStore();
  const health = new HealthModel(settings.config.healthyWithAtLeastOneConfigLoaded);
  const store =
    overrides.store ??
    createStore(
      settings.backend,
      { stats, log, now: clock, random: (max) => Math.floor(Math.random() * max) },
      settings.limiter.expirationJitterMaxSeconds,
    );
  store.onHealthChange((healthy) => (healthy ? health.ok('redis') : health.fail('redis')));
  if (!store.isHealthy()) health.fail('redis');

  const localCache =
    settings.limiter.localCacheSizeInBytes > 0
      ? new LocalOverLimitCache(settings.limiter.localCacheSizeInBytes, clock)
      : undefined;
  if (localCache) stats.addGaugeSource(() => localCache.gauges());

  const config = new ConfigHolder(stats, log, settings.config.mergeDomainConfig);
  if (settings.config.healthyWithAtLeastOneConfigLoaded) {
    config.onLoad((loaded) => (loaded.domains.size > 0 ? health.ok('config') : health.fail('config')));
  }
  const limiter = new RateLimiter(
    store,
    localCache,
    stats,
    {
      cacheKeyPrefix: settings.limiter.cacheKeyPrefix,
      nearLimitRatio: settings.limiter.nearLimitRatio,
      stopIncrementWhenOverLimit: settings.limiter.stopCacheKeyIncrementWhenOverLimit,
    },
    clock,
  );
  const limiterSettings = settings.limiter;
  const service = new RateLimitService(
    config,
    limiter,
    stats,
    {
      globalShadowMode: limiterSettings.shadowMode,
      responseHeaders: limiterSettings.responseHeadersEnabled
        ? {
            limit: limiterSettings.limitHeader,
            remaining: limiterSettings.remainingHeader,
            reset: limiterSettings.resetHeader,
          }
        : undefined,
      responseDynamicMetadata: limiterSettings.responseDynamicMetadata,
    },
    clock,
  );

  const provider = overrides.provider ?? createConfigProvider(settings, log);
  const providerStarted = provider.start(config.apply);
  if (!settings.config.forceStartWithoutInitialConfig) await providerStarted;
  else providerStarted.catch((error: Error) => log.error(`config provider failed: ${error.message}`));

  const grpcServer = createGrpcServer(service, health, stats, settings.grpc);
  const httpServer = createHttpServer(service, health, log);
  const debugServer = createDebugServer({ config: () => config.current, stats });
  const grpcAddress = settings.grpc.uds
    ? `unix:${settings.grpc.uds}`
    : joinHostPort(settings.grpc.host, settings.grpc.port);
  let ports: RunningServer['ports'];
  try {
    const grpcPort = await bindGrpc(
      grpcServer,
      grpcAddress,
      overrides.grpcCredentials ?? ServerCredentials.createInsecure(),
    );
    ports = {
      grpc: grpcPort,
      http: await listen(httpServer, settings.http.host, settings.http.port),
      debug: await listen(debugServer, settings.debug.host, settings.debug.port),
    };
  } catch (error) {
    grpcServer.forceShutdown();
    httpServer.close();
    debugServer.close();
    await provider.stop();
    await store.close();
    throw error;
  }
  if (!settings.stats.disabled) stats.start(settings.stats.flushIntervalMs);
  log.info('ratelimit service started', ports);

  let closing: Promise<void> | undefined;
  const stopAll = (graceful: boolean) => {
    closing ??= (async () => {
      await Promise.all([
        stopGrpc(grpcServer, graceful),
        stopHttp(httpServer, graceful),
        stopHttp(debugServer, false),
        provider.stop(),
      ]);
      await store.close();
      await stats.close();
    })();
    return closing;
  };
  return {
    ports,
    stats,
    health,
    config,
    service,
    localCache,
    shutdown: () => {
      health.fail('sigterm');
      return stopAll(true);
    },
    close: () => stopAll(false),
  };
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

function stopGrpc(server: GrpcServer, graceful: boolean): Promise<void> {
  if (!graceful) {
    server.forceShutdown();
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    const force = setTimeout(() => server.forceShutdown(), GRACEFUL_STOP_MS).unref();
    server.tryShutdown(() => {
      clearTimeout(force);
      resolve();
    });
  });
}

function stopHttp(server: HttpServer, graceful: boolean): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), graceful ? GRACEFUL_STOP_MS : 0).unref();
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}
