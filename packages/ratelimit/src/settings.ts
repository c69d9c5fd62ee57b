import { randomUUID } from 'node:crypto';
import type { BackendSettings, BackendType } from './backends/index.js';
import { readMemcacheSettings } from './backends/memcache/index.js';
import {
  DEFAULT_MEMORY_MAX_BYTES,
  DEFAULT_MEMORY_MAX_COUNTERS,
  MEMORY_MAX_BYTES_LIMIT,
} from './backends/memory.js';
import { readRedisSettings } from './backends/redis/index.js';
import { EnvReader } from './env-reader.js';
import { SettingsError } from './errors.js';
import type { LimiterOptions } from './limiter/limiter.js';
import type { LogLevel } from './log.js';
import { LOG_FORMATS, type LogFormat } from './observability/logger.js';
import type { TracingSettings } from './observability/tracing.js';
import type { ConfigSettings } from './provider/index.js';
import type { XdsProviderSettings } from './provider/xds/sotw-provider.js';
import type { HttpClientLimits } from './server/client-limits.js';
import type { GrpcServerOptions } from './server/grpc.js';
import type { ServerTlsFiles } from './server/tls/reloading-credentials.js';
import type { QuotaOptions } from './service/quota-service.js';
import type { ServiceOptions } from './service/ratelimit-service.js';
import { type MogrifierSpec, parseTagPairs } from './stats/sinks/mogrifier.js';
import type { StatSinkSettings } from './stats/sinks/select.js';
import { DEFAULT_MAX_PER_VALUE_KEYS, type StatStoreOptions } from './stats/store.js';

/** Where a server listens. */
export interface Address {
  readonly host: string;
  readonly port: number;
}

/**
 * Every setting of the service, parsed and validated once at startup. Each group is shaped as the
 * options of the part it feeds, so startServer hands it over as it is.
 */
export interface Settings {
  /** RATELIMIT_WORKERS: server processes sharing the ports (node:cluster); 1 = no cluster. */
  readonly workers: number;
  /** SHUTDOWN_DRAIN_DURATION: after SIGTERM, how long health fails while the listeners still serve. */
  readonly shutdownDrainMs: number;
  readonly http: Address;
  readonly debug: Address;
  /** Bounds on HTTP clients (the /json and debug servers); the reference has none. */
  readonly httpClientLimits: HttpClientLimits;
  readonly grpc: Address &
    GrpcServerOptions & {
      /** GRPC_UDS: when set, gRPC listens on this unix socket instead of host:port. */
      readonly uds: string;
      /** GRPC_HANDSHAKE_TIMEOUT: a connection must finish TLS and the HTTP/2 preface within it (grpc-go: 120 s). */
      readonly handshakeTimeoutMs: number;
      /** GRPC_SERVER_USE_TLS and its files (mTLS with GRPC_CLIENT_TLS_CACERT); undefined: plaintext. */
      readonly tls: ServerTlsFiles | undefined;
    };
  readonly config: ConfigSettings;
  readonly limiter: LimiterOptions;
  /** LOCAL_CACHE_SIZE_IN_BYTES; 0: no local over-limit cache. */
  readonly localCacheSizeInBytes: number;
  readonly service: ServiceOptions;
  readonly backend: BackendSettings;
  /** format: LOG_FORMAT when set; undefined follows the log's output (see resolveLogFormat). */
  readonly log: { readonly level: LogLevel; readonly format: LogFormat | undefined };
  readonly stats: {
    readonly store: StatStoreOptions;
    readonly sink: StatSinkSettings;
    readonly flushIntervalMs: number;
  };
  readonly tracing: TracingSettings;
  /** RLQS_*: the Rate Limit Quota Service on the gRPC server (off unless RLQS_ENABLED=true). */
  readonly rlqs: QuotaOptions & { readonly enabled: boolean };
}

const INT32 = { min: 0, max: 2_147_483_647 };

/**
 * Reads every setting from the environment: the reference's names first, the spec's generic
 * spellings (KVSTORE_*, OBJCACHE_*, USE_PUSHSTATS, USE_TAGSTATS/TAGSTATS_*, USE_PULLSTATS/PULLSTATS_*)
 * as aliases. Throws SettingsError naming the first invalid setting. The result is frozen.
 */
export function readSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const read = new EnvReader(env);
  const maxDescriptors = read.integer('MAX_DESCRIPTORS_PER_REQUEST', 1000, { min: 1, max: 1e7 });
  const log = readLog(read);
  const settings: Settings = {
    workers: read.integer('RATELIMIT_WORKERS', 1, { min: 1, max: 256 }),
    shutdownDrainMs: read.duration('SHUTDOWN_DRAIN_DURATION', '0s'),
    http: { host: read.string('HOST', '0.0.0.0'), port: read.port('PORT', 8080) },
    debug: { host: read.string('DEBUG_HOST', '0.0.0.0'), port: read.port('DEBUG_PORT', 6070) },
    httpClientLimits: {
      headersTimeoutMs: read.duration('HTTP_HEADERS_TIMEOUT', '10s'),
      requestTimeoutMs: read.duration('HTTP_REQUEST_TIMEOUT', '30s'),
      lingering: {
        timeMs: read.duration('HTTP_LINGERING_TIME', '30s'),
        maxBytes: read.integer('HTTP_LINGERING_MAX_BYTES', 16 * 1024 * 1024, { min: 0, max: 2 ** 40 }),
      },
    },
    grpc: {
      host: read.string('GRPC_HOST', '0.0.0.0'),
      port: read.port('GRPC_PORT', 8081),
      uds: read.string('GRPC_UDS', ''),
      transport: read.oneOf('GRPC_TRANSPORT', 'grpc-js', ['grpc-js', 'h2']),
      maxConnectionAgeMs: read.duration('GRPC_MAX_CONNECTION_AGE', '24h'),
      maxConnectionAgeGraceMs: read.duration('GRPC_MAX_CONNECTION_AGE_GRACE', '1h'),
      handshakeTimeoutMs: read.duration('GRPC_HANDSHAKE_TIMEOUT', '120s'),
      // grpc-go's default receive limit, which the reference keeps.
      maxReceiveMessageBytes: 4 * 1024 * 1024,
      maxDescriptors,
      tls: readGrpcTls(read),
    },
    config: {
      type: read.oneOf('CONFIG_TYPE', 'FILE', ['FILE', 'GRPC_XDS_SOTW']),
      forceStartWithoutInitialConfig: read.bool('FORCE_START_WITHOUT_INITIAL_CONFIG', false),
      mergeDomainConfig: read.bool('MERGE_DOMAIN_CONFIG', false),
      healthyWithAtLeastOneConfigLoaded: read.bool('HEALTHY_WITH_AT_LEAST_ONE_CONFIG_LOADED', false),
      file: {
        runtimeRoot: read.string('RUNTIME_ROOT', '/srv/runtime_data/current'),
        runtimeSubdirectory: read.string('RUNTIME_SUBDIRECTORY', ''),
        runtimeAppDirectory: read.string('RUNTIME_APPDIRECTORY', 'config'),
        ignoreDotFiles: read.bool('RUNTIME_IGNOREDOTFILES', false),
        watchRoot: read.bool('RUNTIME_WATCH_ROOT', true),
      },
      xds: readXds(read),
    },
    limiter: {
      cacheKeyPrefix: read.string('CACHE_KEY_PREFIX', ''),
      nearLimitRatio: read.number('NEAR_LIMIT_RATIO', 0.8, { min: 0, max: 1 }),
      stopIncrementWhenOverLimit: read.bool('STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT', false),
    },
    localCacheSizeInBytes: read.integer('LOCAL_CACHE_SIZE_IN_BYTES', 0, INT32),
    service: {
      globalShadowMode: read.bool('SHADOW_MODE', false),
      responseHeaders: read.bool('LIMIT_RESPONSE_HEADERS_ENABLED', false)
        ? {
            limit: read.string('LIMIT_LIMIT_HEADER', 'RateLimit-Limit'),
            remaining: read.string('LIMIT_REMAINING_HEADER', 'RateLimit-Remaining'),
            reset: read.string('LIMIT_RESET_HEADER', 'RateLimit-Reset'),
          }
        : undefined,
      responseDynamicMetadata: read.bool('RESPONSE_DYNAMIC_METADATA', false),
      maxDescriptors,
    },
    backend: readBackend(read, env),
    log,
    stats: readStats(read, log.level),
    tracing: {
      enabled: read.bool('TRACING_ENABLED', false),
      exporterProtocol: read.oneOf('TRACING_EXPORTER_PROTOCOL', 'http', ['http', 'grpc']),
      serviceName: read.string('TRACING_SERVICE_NAME', 'RateLimit'),
      serviceNamespace: read.string('TRACING_SERVICE_NAMESPACE', ''),
      serviceInstanceId: read.string('TRACING_SERVICE_INSTANCE_ID', randomUUID()),
      samplingRate: read.number('TRACING_SAMPLING_RATE', 1, { min: 0, max: 1 }),
    },
    rlqs: readRlqs(read),
  };
  validateCombinations(settings);
  return deepFreeze(settings);
}

function readBackend(read: EnvReader, env: NodeJS.ProcessEnv): BackendSettings {
  const type = readBackendType(env);
  const jitter = () => read.integer('EXPIRATION_JITTER_MAX_SECONDS', 300, INT32);
  if (type === 'redis') return { type, redis: readRedisSettings(env), expirationJitterMaxSeconds: jitter() };
  if (type === 'memcache') {
    return { type, memcache: readMemcacheSettings(env), expirationJitterMaxSeconds: jitter() };
  }
  return {
    type,
    memory: {
      maxCounters: read.integer('MEMORY_MAX_COUNTERS', DEFAULT_MEMORY_MAX_COUNTERS, { min: 1, max: 1e9 }),
      maxBytes: read.integer('MEMORY_MAX_BYTES', DEFAULT_MEMORY_MAX_BYTES, {
        // Room for the largest key a 4 MiB request carries, in two-byte characters: one key never empties the store.
        min: 16 * 1024 * 1024,
        max: MEMORY_MAX_BYTES_LIMIT,
      }),
    },
  };
}

/** BACKEND_TYPE alone: the server's store, and the algorithms the config check allows. */
export function readBackendType(env: NodeJS.ProcessEnv): BackendType {
  const found = new EnvReader(env).raw('BACKEND_TYPE');
  if (!found) return 'redis';
  switch (found.value.toLowerCase()) {
    case 'redis':
      return 'redis';
    case 'memcache':
    case 'objcache':
      return 'memcache';
    case 'memory':
      return 'memory';
    default:
      throw new SettingsError(
        'BACKEND_TYPE',
        `'${found.value}' is not one of redis, memcache (alias objcache), memory`,
      );
  }
}

function readRlqs(read: EnvReader): Settings['rlqs'] {
  return {
    enabled: read.bool('RLQS_ENABLED', false),
    maxStreams: read.integer('RLQS_MAX_STREAMS', 10_000, { min: 1, max: 1e7 }),
    maxBucketsPerStream: read.integer('RLQS_MAX_BUCKETS_PER_STREAM', 1000, { min: 1, max: 1e7 }),
    maxBuckets: read.integer('RLQS_MAX_BUCKETS', 100_000, { min: 1, max: 1e8 }),
    assignmentTtlMs: read.duration('RLQS_ASSIGNMENT_TTL', '60s'),
    abandonAfterMs: read.duration('RLQS_ABANDON_AFTER', '5m'),
    rebalanceIntervalMs: read.duration('RLQS_REBALANCE_INTERVAL', '1s'),
  };
}

function readGrpcTls(read: EnvReader): ServerTlsFiles | undefined {
  const enabled = read.bool('GRPC_SERVER_USE_TLS', false);
  const certFile = read.string('GRPC_SERVER_TLS_CERT', '');
  const keyFile = read.string('GRPC_SERVER_TLS_KEY', '');
  const clientCaFile = read.string('GRPC_CLIENT_TLS_CACERT', '');
  const clientSan = read.string('GRPC_CLIENT_TLS_SAN', '');
  if (!enabled) {
    if (clientCaFile !== '') {
      throw new SettingsError('GRPC_CLIENT_TLS_CACERT', 'mutual TLS needs GRPC_SERVER_USE_TLS=true');
    }
    return undefined;
  }
  if (certFile === '' || keyFile === '') {
    throw new SettingsError('GRPC_SERVER_USE_TLS', 'needs GRPC_SERVER_TLS_CERT and GRPC_SERVER_TLS_KEY');
  }
  return { certFile, keyFile, clientCaFile: clientCaFile || undefined, clientSan: clientSan || undefined };
}

function readXds(read: EnvReader): XdsProviderSettings {
  return {
    nodeId: read.string('CONFIG_GRPC_XDS_NODE_ID', 'default'),
    nodeMetadata: Object.fromEntries(read.pairs('CONFIG_GRPC_XDS_NODE_METADATA', '=')),
    serverUrl: read.string('CONFIG_GRPC_XDS_SERVER_URL', 'localhost:18000'),
    connectRetryIntervalMs: read.duration('CONFIG_GRPC_XDS_SERVER_CONNECT_RETRY_INTERVAL', '3s'),
    useTls: read.bool('CONFIG_GRPC_XDS_SERVER_USE_TLS', false),
    clientTlsCert: read.string('CONFIG_GRPC_XDS_CLIENT_TLS_CERT', ''),
    clientTlsKey: read.string('CONFIG_GRPC_XDS_CLIENT_TLS_KEY', ''),
    serverTlsCaCert: read.string('CONFIG_GRPC_XDS_SERVER_TLS_CACERT', ''),
    serverTlsSan: read.string('CONFIG_GRPC_XDS_SERVER_TLS_SAN', ''),
    additionalHeaders: Object.fromEntries(read.pairs('CONFIG_GRPC_XDS_CLIENT_ADDITIONAL_HEADERS', ':')),
    backoff: {
      jitter: read.bool('XDS_CLIENT_BACKOFF_JITTER', true),
      initialIntervalMs: read.duration('XDS_CLIENT_BACKOFF_INITIAL_INTERVAL', '10s'),
      maxIntervalMs: read.duration('XDS_CLIENT_BACKOFF_MAX_INTERVAL', '60s'),
      randomFactor: read.number('XDS_CLIENT_BACKOFF_RANDOM_FACTOR', 0.5, { min: 0, max: 1e6 }),
    },
    maxMessageSizeBytes: read.integer('XDS_CLIENT_MAX_MSG_SIZE_IN_BYTES', 0, INT32),
  };
}

const LOGRUS_LEVELS: Record<string, LogLevel> = {
  trace: 'debug',
  debug: 'debug',
  info: 'info',
  warn: 'warn',
  warning: 'warn',
  error: 'error',
  fatal: 'error',
  panic: 'error',
};

function readLog(read: EnvReader): Settings['log'] {
  const levelName = read.string('LOG_LEVEL', 'WARN');
  const level = LOGRUS_LEVELS[levelName.toLowerCase()];
  if (!level) {
    throw new SettingsError(
      'LOG_LEVEL',
      `'${levelName}' is not one of trace, debug, info, warn, error, fatal, panic`,
    );
  }
  const format = read.raw('LOG_FORMAT') ? read.oneOf('LOG_FORMAT', 'text', LOG_FORMATS) : undefined;
  return { level, format };
}

function readStats(read: EnvReader, logLevel: LogLevel): Settings['stats'] {
  const disableStats = read.bool('DISABLE_STATS', false);
  const useStatsd = read.bool('USE_STATSD', true, ['USE_PUSHSTATS']);
  const useDogStatsd = read.bool('USE_DOG_STATSD', false, ['USE_TAGSTATS']);
  const usePrometheus = read.bool('USE_PROMETHEUS', false, ['USE_PULLSTATS']);
  const sinks = [useStatsd, useDogStatsd, usePrometheus].filter(Boolean).length;
  if (!disableStats && sinks > 1) {
    throw new SettingsError(
      'USE_STATSD',
      'unable to use more than one stats sink at the same time. Set one of USE_DOG_STATSD, USE_STATSD, USE_PROMETHEUS (USE_STATSD defaults to true, so set USE_STATSD=false with the others)',
    );
  }
  return {
    store: {
      maxPerValueKeys: read.integer('STATS_MAX_PER_VALUE_KEYS', DEFAULT_MAX_PER_VALUE_KEYS, {
        min: 0,
        max: 1e8,
      }),
    },
    flushIntervalMs: read.duration('STATS_FLUSH_INTERVAL', '10s'),
    sink: {
      disableStats,
      useStatsd,
      statsdHost: read.string('STATSD_HOST', 'localhost'),
      statsdPort: read.port('STATSD_PORT', 8125),
      useDogStatsd,
      dogStatsdMogrifiers: readMogrifiers(read),
      usePrometheus,
      prometheusAddr: read.string('PROMETHEUS_ADDR', ':9090', ['PULLSTATS_ADDR']),
      prometheusPath: read.string('PROMETHEUS_PATH', '/metrics', ['PULLSTATS_PATH']),
      prometheusMapperYaml: read.string('PROMETHEUS_MAPPER_YAML', '', ['PULLSTATS_MAPPER_YAML']),
      extraTags: Object.fromEntries(read.pairs('EXTRA_TAGS', ':')),
      debugLog: logLevel === 'debug',
    },
  };
}

function readMogrifiers(read: EnvReader): MogrifierSpec[] {
  const names = read.list('USE_DOG_STATSD_MOGRIFIERS', ['TAGSTATS_MOGRIFIERS', 'USE_TAGSTATS_MOGRIFIERS']);
  return names.map((name) => {
    const setting = (suffix: string) => `DOG_STATSD_MOGRIFIER_${name}_${suffix}`;
    const alias = (suffix: string) => [`TAGSTATS_MOGRIFIER_${name}_${suffix}`];
    const pattern = read.raw(setting('PATTERN'), alias('PATTERN'));
    if (!pattern) throw new SettingsError(setting('PATTERN'), `is required for mogrifier '${name}'`);
    try {
      new RegExp(pattern.value);
    } catch (error) {
      throw new SettingsError(pattern.name, `is not a valid regular expression: ${(error as Error).message}`);
    }
    const metricName = read.raw(setting('NAME'), alias('NAME'));
    if (!metricName) throw new SettingsError(setting('NAME'), `is required for mogrifier '${name}'`);
    const tags = read.raw(setting('TAGS'), alias('TAGS'));
    return {
      id: name,
      pattern: pattern.value,
      name: metricName.value,
      tags: parseTagPairs(tags?.name ?? setting('TAGS'), tags?.value ?? ''),
    };
  });
}

function validateCombinations(settings: Settings): void {
  const httpTimeouts = settings.httpClientLimits;
  for (const [name, ms] of [
    ['HTTP_HEADERS_TIMEOUT', httpTimeouts.headersTimeoutMs],
    ['HTTP_REQUEST_TIMEOUT', httpTimeouts.requestTimeoutMs],
    ['GRPC_HANDSHAKE_TIMEOUT', settings.grpc.handshakeTimeoutMs],
  ] as const) {
    if (ms < 1)
      throw new SettingsError(name, 'must be at least 1ms: without it a client holds a connection forever');
  }
  if (httpTimeouts.headersTimeoutMs > httpTimeouts.requestTimeoutMs) {
    throw new SettingsError(
      'HTTP_HEADERS_TIMEOUT',
      'must not be longer than HTTP_REQUEST_TIMEOUT, which bounds the headers and the body together',
    );
  }
  validateRlqs(settings);
  if (settings.workers > 1 && settings.backend.type === 'memory') {
    throw new SettingsError(
      'RATELIMIT_WORKERS',
      `${settings.workers} workers need a shared store: the memory backend keeps its counters per process, so each worker would count on its own. Use BACKEND_TYPE=redis or memcache, or RATELIMIT_WORKERS=1`,
    );
  }
}

function validateRlqs(settings: Settings): void {
  const { rlqs } = settings;
  if (!rlqs.enabled) return;
  if (settings.backend.type === 'memcache') {
    throw new SettingsError(
      'RLQS_ENABLED',
      "the Rate Limit Quota Service needs BACKEND_TYPE=redis or memory: memcached cannot keep the clients' demand it shares quotas by",
    );
  }
  if (rlqs.rebalanceIntervalMs < 10) {
    throw new SettingsError('RLQS_REBALANCE_INTERVAL', 'must be at least 10ms');
  }
  if (rlqs.abandonAfterMs < 1) throw new SettingsError('RLQS_ABANDON_AFTER', 'must be at least 1ms');
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !(value instanceof RegExp) && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
