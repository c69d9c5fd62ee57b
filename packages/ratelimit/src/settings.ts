import { randomUUID } from 'node:crypto';
import { type MemcacheSettings, readMemcacheSettings } from './backends/memcache/index.js';
import {
  DEFAULT_MEMORY_MAX_BYTES,
  DEFAULT_MEMORY_MAX_COUNTERS,
  type MemoryStoreOptions,
} from './backends/memory.js';
import { type RedisSettings, readRedisSettings } from './backends/redis/index.js';
import { EnvReader } from './env-reader.js';
import { SettingsError } from './errors.js';
import type { LogLevel } from './log.js';
import { DEFAULT_MAX_PER_VALUE_KEYS } from './stats/store.js';

export type BackendType = 'redis' | 'memcache' | 'memory';

/** BACKEND_TYPE and the settings of that store only, shaped as the options its constructor takes. */
export type BackendSettings =
  | { readonly type: 'redis'; readonly redis: RedisSettings }
  | { readonly type: 'memcache'; readonly memcache: MemcacheSettings }
  | { readonly type: 'memory'; readonly memory: MemoryStoreOptions };

export interface DogStatsdMogrifier {
  readonly name: string;
  /** DOG_STATSD_MOGRIFIER_<N>_PATTERN, compiled. */
  readonly pattern: RegExp;
  /** DOG_STATSD_MOGRIFIER_<N>_NAME: the emitted name, may use $1, $2... */
  readonly metricName: string;
  /** DOG_STATSD_MOGRIFIER_<N>_TAGS: `tag:$1` items. */
  readonly tags: readonly string[];
}

/** Every setting of the service, parsed and validated once at startup. */
export interface Settings {
  /** RATELIMIT_WORKERS: server processes sharing the ports (node:cluster); 1 = no cluster. */
  readonly workers: number;
  readonly http: { readonly host: string; readonly port: number };
  readonly shutdown: {
    /** SHUTDOWN_DRAIN_DURATION: after SIGTERM, how long health fails while the listeners still serve. */
    readonly drainMs: number;
  };
  /** Bounds on HTTP clients (the /json and debug servers); the reference has none. */
  readonly httpTimeouts: {
    /** HTTP_HEADERS_TIMEOUT: from connect (or the previous response) to the end of the headers. */
    readonly headersTimeoutMs: number;
    /** HTTP_REQUEST_TIMEOUT: from connect (or the previous response) to the end of the body. */
    readonly requestTimeoutMs: number;
  };
  readonly grpc: {
    readonly host: string;
    readonly port: number;
    /** GRPC_UDS: when set, gRPC listens on this unix socket instead of host:port. */
    readonly uds: string;
    readonly maxConnectionAgeMs: number;
    readonly maxConnectionAgeGraceMs: number;
    /** GRPC_HANDSHAKE_TIMEOUT: a connection must finish TLS and the HTTP/2 preface within it (grpc-go: 120 s). */
    readonly handshakeTimeoutMs: number;
  };
  readonly grpcTls: {
    readonly enabled: boolean;
    readonly certFile: string;
    readonly keyFile: string;
    /** mTLS is on when this is set. */
    readonly clientCaFile: string;
    readonly clientSan: string;
  };
  readonly debug: { readonly host: string; readonly port: number };
  readonly config: {
    readonly type: 'FILE' | 'GRPC_XDS_SOTW';
    readonly forceStartWithoutInitialConfig: boolean;
    readonly runtimeRoot: string;
    readonly runtimeSubdirectory: string;
    readonly runtimeAppDirectory: string;
    readonly runtimeIgnoreDotFiles: boolean;
    readonly runtimeWatchRoot: boolean;
    readonly mergeDomainConfig: boolean;
    readonly healthyWithAtLeastOneConfigLoaded: boolean;
  };
  readonly limiter: {
    readonly shadowMode: boolean;
    readonly nearLimitRatio: number;
    readonly cacheKeyPrefix: string;
    readonly stopCacheKeyIncrementWhenOverLimit: boolean;
    readonly localCacheSizeInBytes: number;
    readonly expirationJitterMaxSeconds: number;
    readonly responseHeadersEnabled: boolean;
    readonly limitHeader: string;
    readonly remainingHeader: string;
    readonly resetHeader: string;
    readonly responseDynamicMetadata: boolean;
    /** MAX_DESCRIPTORS_PER_REQUEST: bounds one request's work, so one call cannot stall the others. */
    readonly maxDescriptorsPerRequest: number;
  };
  readonly backend: BackendSettings;
  readonly log: { readonly level: LogLevel; readonly format: 'text' | 'json' };
  readonly stats: {
    readonly disabled: boolean;
    readonly flushIntervalMs: number;
    /** STATS_MAX_PER_VALUE_KEYS: bound on stat keys made from request values. */
    readonly maxPerValueKeys: number;
    readonly extraTags: ReadonlyArray<readonly [string, string]>;
    readonly useStatsd: boolean;
    readonly statsdHost: string;
    readonly statsdPort: number;
    readonly useDogStatsd: boolean;
    readonly dogStatsdMogrifiers: readonly DogStatsdMogrifier[];
    readonly usePrometheus: boolean;
    readonly prometheusAddr: string;
    readonly prometheusPath: string;
    readonly prometheusMapperYaml: string;
  };
  readonly tracing: {
    readonly enabled: boolean;
    readonly exporterProtocol: 'http' | 'grpc';
    readonly serviceName: string;
    readonly serviceNamespace: string;
    readonly serviceInstanceId: string;
    readonly samplingRate: number;
  };
  readonly xds: {
    readonly nodeId: string;
    readonly nodeMetadata: ReadonlyArray<readonly [string, string]>;
    readonly serverUrl: string;
    readonly connectRetryIntervalMs: number;
    readonly useTls: boolean;
    readonly clientTlsCert: string;
    readonly clientTlsKey: string;
    readonly serverTlsCaCert: string;
    readonly serverTlsSan: string;
    readonly additionalHeaders: ReadonlyArray<readonly [string, string]>;
    readonly backoffJitter: boolean;
    readonly backoffInitialIntervalMs: number;
    readonly backoffMaxIntervalMs: number;
    readonly backoffRandomFactor: number;
    readonly maxMessageSizeBytes: number;
  };
}

const INT32 = { min: 0, max: 2_147_483_647 };

/**
 * Reads every setting from the environment: the reference's names first, the spec's generic
 * spellings (KVSTORE_*, OBJCACHE_*, USE_PUSHSTATS, USE_TAGSTATS/TAGSTATS_*, USE_PULLSTATS/PULLSTATS_*)
 * as aliases. Throws SettingsError naming the first invalid setting. The result is frozen.
 */
export function readSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const read = new EnvReader(env);
  const settings: Settings = {
    workers: read.integer('RATELIMIT_WORKERS', 1, { min: 1, max: 256 }),
    http: { host: read.string('HOST', '0.0.0.0'), port: read.port('PORT', 8080) },
    shutdown: { drainMs: read.duration('SHUTDOWN_DRAIN_DURATION', '0s') },
    httpTimeouts: {
      headersTimeoutMs: read.duration('HTTP_HEADERS_TIMEOUT', '10s'),
      requestTimeoutMs: read.duration('HTTP_REQUEST_TIMEOUT', '30s'),
    },
    grpc: {
      host: read.string('GRPC_HOST', '0.0.0.0'),
      port: read.port('GRPC_PORT', 8081),
      uds: read.string('GRPC_UDS', ''),
      maxConnectionAgeMs: read.duration('GRPC_MAX_CONNECTION_AGE', '24h'),
      maxConnectionAgeGraceMs: read.duration('GRPC_MAX_CONNECTION_AGE_GRACE', '1h'),
      handshakeTimeoutMs: read.duration('GRPC_HANDSHAKE_TIMEOUT', '120s'),
    },
    grpcTls: readGrpcTls(read),
    debug: { host: read.string('DEBUG_HOST', '0.0.0.0'), port: read.port('DEBUG_PORT', 6070) },
    config: {
      type: read.oneOf('CONFIG_TYPE', 'FILE', ['FILE', 'GRPC_XDS_SOTW']),
      forceStartWithoutInitialConfig: read.bool('FORCE_START_WITHOUT_INITIAL_CONFIG', false),
      runtimeRoot: read.string('RUNTIME_ROOT', '/srv/runtime_data/current'),
      runtimeSubdirectory: read.string('RUNTIME_SUBDIRECTORY', ''),
      runtimeAppDirectory: read.string('RUNTIME_APPDIRECTORY', 'config'),
      runtimeIgnoreDotFiles: read.bool('RUNTIME_IGNOREDOTFILES', false),
      runtimeWatchRoot: read.bool('RUNTIME_WATCH_ROOT', true),
      mergeDomainConfig: read.bool('MERGE_DOMAIN_CONFIG', false),
      healthyWithAtLeastOneConfigLoaded: read.bool('HEALTHY_WITH_AT_LEAST_ONE_CONFIG_LOADED', false),
    },
    limiter: {
      shadowMode: read.bool('SHADOW_MODE', false),
      nearLimitRatio: read.number('NEAR_LIMIT_RATIO', 0.8, { min: 0, max: 1 }),
      cacheKeyPrefix: read.string('CACHE_KEY_PREFIX', ''),
      stopCacheKeyIncrementWhenOverLimit: read.bool('STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT', false),
      localCacheSizeInBytes: read.integer('LOCAL_CACHE_SIZE_IN_BYTES', 0, INT32),
      expirationJitterMaxSeconds: read.integer('EXPIRATION_JITTER_MAX_SECONDS', 300, INT32),
      responseHeadersEnabled: read.bool('LIMIT_RESPONSE_HEADERS_ENABLED', false),
      limitHeader: read.string('LIMIT_LIMIT_HEADER', 'RateLimit-Limit'),
      remainingHeader: read.string('LIMIT_REMAINING_HEADER', 'RateLimit-Remaining'),
      resetHeader: read.string('LIMIT_RESET_HEADER', 'RateLimit-Reset'),
      responseDynamicMetadata: read.bool('RESPONSE_DYNAMIC_METADATA', false),
      maxDescriptorsPerRequest: read.integer('MAX_DESCRIPTORS_PER_REQUEST', 1000, { min: 1, max: 1e7 }),
    },
    backend: readBackend(read, env),
    log: readLog(read),
    stats: readStats(read, env),
    tracing: {
      enabled: read.bool('TRACING_ENABLED', false),
      exporterProtocol: read.oneOf('TRACING_EXPORTER_PROTOCOL', 'http', ['http', 'grpc']),
      serviceName: read.string('TRACING_SERVICE_NAME', 'RateLimit'),
      serviceNamespace: read.string('TRACING_SERVICE_NAMESPACE', ''),
      serviceInstanceId: read.string('TRACING_SERVICE_INSTANCE_ID', randomUUID()),
      samplingRate: read.number('TRACING_SAMPLING_RATE', 1, { min: 0, max: 1 }),
    },
    xds: {
      nodeId: read.string('CONFIG_GRPC_XDS_NODE_ID', 'default'),
      nodeMetadata: read.pairs('CONFIG_GRPC_XDS_NODE_METADATA', '='),
      serverUrl: read.string('CONFIG_GRPC_XDS_SERVER_URL', 'localhost:18000'),
      connectRetryIntervalMs: read.duration('CONFIG_GRPC_XDS_SERVER_CONNECT_RETRY_INTERVAL', '3s'),
      useTls: read.bool('CONFIG_GRPC_XDS_SERVER_USE_TLS', false),
      clientTlsCert: read.string('CONFIG_GRPC_XDS_CLIENT_TLS_CERT', ''),
      clientTlsKey: read.string('CONFIG_GRPC_XDS_CLIENT_TLS_KEY', ''),
      serverTlsCaCert: read.string('CONFIG_GRPC_XDS_SERVER_TLS_CACERT', ''),
      serverTlsSan: read.string('CONFIG_GRPC_XDS_SERVER_TLS_SAN', ''),
      additionalHeaders: read.pairs('CONFIG_GRPC_XDS_CLIENT_ADDITIONAL_HEADERS', ':'),
      backoffJitter: read.bool('XDS_CLIENT_BACKOFF_JITTER', true),
      backoffInitialIntervalMs: read.duration('XDS_CLIENT_BACKOFF_INITIAL_INTERVAL', '10s'),
      backoffMaxIntervalMs: read.duration('XDS_CLIENT_BACKOFF_MAX_INTERVAL', '60s'),
      backoffRandomFactor: read.number('XDS_CLIENT_BACKOFF_RANDOM_FACTOR', 0.5, { min: 0, max: 1e6 }),
      maxMessageSizeBytes: read.integer('XDS_CLIENT_MAX_MSG_SIZE_IN_BYTES', 0, INT32),
    },
  };
  validateCombinations(settings);
  return deepFreeze(settings);
}

function readBackend(read: EnvReader, env: NodeJS.ProcessEnv): BackendSettings {
  const type = readBackendType(read);
  if (type === 'redis') return { type, redis: readRedisSettings(env) };
  if (type === 'memcache') return { type, memcache: readMemcacheSettings(env) };
  return {
    type,
    memory: {
      maxCounters: read.integer('MEMORY_MAX_COUNTERS', DEFAULT_MEMORY_MAX_COUNTERS, { min: 1, max: 1e9 }),
      maxBytes: read.integer('MEMORY_MAX_BYTES', DEFAULT_MEMORY_MAX_BYTES, {
        // Room for the largest key a 4 MiB request carries, in two-byte characters: one key never empties the store.
        min: 16 * 1024 * 1024,
        max: Number.MAX_SAFE_INTEGER,
      }),
    },
  };
}

function readBackendType(read: EnvReader): BackendType {
  const found = read.raw('BACKEND_TYPE');
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

function readGrpcTls(read: EnvReader): Settings['grpcTls'] {
  return {
    enabled: read.bool('GRPC_SERVER_USE_TLS', false),
    certFile: read.string('GRPC_SERVER_TLS_CERT', ''),
    keyFile: read.string('GRPC_SERVER_TLS_KEY', ''),
    clientCaFile: read.string('GRPC_CLIENT_TLS_CACERT', ''),
    clientSan: read.string('GRPC_CLIENT_TLS_SAN', ''),
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
  return { level, format: read.oneOf('LOG_FORMAT', 'text', ['text', 'json']) };
}

function readStats(read: EnvReader, env: NodeJS.ProcessEnv): Settings['stats'] {
  return {
    disabled: read.bool('DISABLE_STATS', false),
    flushIntervalMs: read.duration('STATS_FLUSH_INTERVAL', '10s'),
    maxPerValueKeys: read.integer('STATS_MAX_PER_VALUE_KEYS', DEFAULT_MAX_PER_VALUE_KEYS, {
      min: 0,
      max: 1e8,
    }),
    extraTags: read.pairs('EXTRA_TAGS', ':'),
    useStatsd: read.bool('USE_STATSD', true, ['USE_PUSHSTATS']),
    statsdHost: read.string('STATSD_HOST', 'localhost'),
    statsdPort: read.port('STATSD_PORT', 8125),
    useDogStatsd: read.bool('USE_DOG_STATSD', false, ['USE_TAGSTATS']),
    dogStatsdMogrifiers: readMogrifiers(read, env),
    usePrometheus: read.bool('USE_PROMETHEUS', false, ['USE_PULLSTATS']),
    prometheusAddr: read.string('PROMETHEUS_ADDR', ':9090', ['PULLSTATS_ADDR']),
    prometheusPath: read.string('PROMETHEUS_PATH', '/metrics', ['PULLSTATS_PATH']),
    prometheusMapperYaml: read.string('PROMETHEUS_MAPPER_YAML', '', ['PULLSTATS_MAPPER_YAML']),
  };
}

function readMogrifiers(read: EnvReader, env: NodeJS.ProcessEnv): DogStatsdMogrifier[] {
  const names = read.list('USE_DOG_STATSD_MOGRIFIERS', ['TAGSTATS_MOGRIFIERS', 'USE_TAGSTATS_MOGRIFIERS']);
  return names.map((name) => {
    const setting = (suffix: string) => `DOG_STATSD_MOGRIFIER_${name}_${suffix}`;
    const alias = (suffix: string) => [`TAGSTATS_MOGRIFIER_${name}_${suffix}`];
    const patternText = read.raw(setting('PATTERN'), alias('PATTERN'));
    if (!patternText) throw new SettingsError(setting('PATTERN'), `is required for mogrifier '${name}'`);
    let pattern: RegExp;
    try {
      pattern = new RegExp(patternText.value);
    } catch (error) {
      throw new SettingsError(
        patternText.name,
        `is not a valid regular expression: ${(error as Error).message}`,
      );
    }
    const metricName = read.raw(setting('NAME'), alias('NAME'));
    if (!metricName) throw new SettingsError(setting('NAME'), `is required for mogrifier '${name}'`);
    return {
      name,
      pattern,
      metricName: metricName.value,
      tags: new EnvReader(env).list(setting('TAGS'), alias('TAGS')),
    };
  });
}

function validateCombinations(settings: Settings): void {
  const { stats, grpcTls, httpTimeouts } = settings;
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
  if (settings.workers > 1 && settings.backend.type === 'memory') {
    throw new SettingsError(
      'RATELIMIT_WORKERS',
      `${settings.workers} workers need a shared store: the memory backend keeps its counters per process, so each worker would count on its own. Use BACKEND_TYPE=redis or memcache, or RATELIMIT_WORKERS=1`,
    );
  }
  const sinks = [stats.useStatsd, stats.useDogStatsd, stats.usePrometheus].filter(Boolean).length;
  if (!stats.disabled && sinks > 1) {
    throw new SettingsError(
      'USE_STATSD',
      'unable to use more than one stats sink at the same time. Set one of USE_DOG_STATSD, USE_STATSD, USE_PROMETHEUS (USE_STATSD defaults to true, so set USE_STATSD=false with the others)',
    );
  }
  if (grpcTls.enabled && (grpcTls.certFile === '' || grpcTls.keyFile === '')) {
    throw new SettingsError('GRPC_SERVER_USE_TLS', 'needs GRPC_SERVER_TLS_CERT and GRPC_SERVER_TLS_KEY');
  }
  if (grpcTls.clientCaFile !== '' && !grpcTls.enabled) {
    throw new SettingsError('GRPC_CLIENT_TLS_CACERT', 'mutual TLS needs GRPC_SERVER_USE_TLS=true');
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !(value instanceof RegExp) && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
