import { SettingsError } from '../../errors.js';
import { PrefixedEnv, parseHostPort, splitList } from './env-values.js';
import { readTlsFileSettings, type TlsFileSettings } from './tls-files.js';

export type RedisTopology = 'single' | 'sentinel' | 'cluster';
export type PoolOnEmptyBehavior = 'CREATE' | 'ERROR' | 'WAIT';

export interface RedisAuth {
  /** Set for the `user:password` form (an ACL user). */
  readonly username?: string;
  readonly password: string;
}

/** REDIS_TLS_*: file paths, read when the store starts. */
export type RedisTlsSettings = TlsFileSettings;

export interface HostPort {
  readonly host: string;
  readonly port: number;
}

/** One Redis deployment: the main one, or the per-second one. */
export interface RedisInstanceSettings {
  /** The setting prefix this instance was read from, for log and error messages. */
  readonly label: 'REDIS' | 'REDIS_PERSECOND';
  readonly socketType: 'tcp' | 'unix';
  readonly type: RedisTopology;
  /** The URL as given. */
  readonly url: string;
  /** single over unix: the socket path. */
  readonly socketPath?: string;
  /** single over tcp: one node; cluster: the seed nodes; sentinel: the sentinels. */
  readonly nodes: readonly HostPort[];
  /** sentinel only: the master name (first item of the URL list). */
  readonly sentinelMasterName?: string;
  readonly auth?: RedisAuth;
  readonly sentinelAuth?: RedisAuth;
  readonly tls: RedisTlsSettings;
  readonly poolSize: number;
  readonly poolOnEmptyBehavior: PoolOnEmptyBehavior;
  readonly poolOnEmptyWaitMs: number;
  /** Connect, read and write timeout. */
  readonly timeoutMs: number;
  readonly pipelineWindowMs: number;
  readonly pipelineLimit: number;
}

/** Every REDIS_* / REDIS_PERSECOND_* setting (and KVSTORE_* aliases), parsed and validated. */
export interface RedisSettings {
  /** REDIS_URL as given (kept for callers that only print it). */
  readonly url: string;
  readonly main: RedisInstanceSettings;
  /** Set when REDIS_PERSECOND=true: SECOND-unit keys go there. */
  readonly perSecond?: RedisInstanceSettings;
  readonly healthCheckActiveConnection: boolean;
  /** Accepted values the reference also only warns about; the store logs them when it starts. */
  readonly warnings: readonly string[];
}

export const REDIS_DEFAULTS = {
  socketType: 'tcp',
  type: 'single',
  url: '127.0.0.1:6379',
  poolSize: 10,
  poolOnEmptyBehavior: 'CREATE',
  poolOnEmptyWait: '1s',
  timeout: '10s',
} as const;

/** Reads REDIS_* settings (KVSTORE_* aliases accepted); throws SettingsError naming the setting. */
export function readRedisSettings(env: NodeJS.ProcessEnv): RedisSettings {
  const main = new PrefixedEnv(env, 'REDIS_', 'KVSTORE_');
  const tls = readTlsFileSettings(main);
  const warnings: string[] = [];
  const mainInstance = readInstance(main, 'REDIS', tls, warnings);
  const perSecondEnabled = main.bool('PERSECOND', false);
  let perSecond: RedisInstanceSettings | undefined;
  if (perSecondEnabled) {
    const reader = new PrefixedEnv(env, 'REDIS_PERSECOND_', 'KVSTORE_PERSECOND_');
    // The reference builds both clients from one TLS configuration (the REDIS_TLS_* files);
    // only the on/off switch is per instance.
    perSecond = readInstance(
      reader,
      'REDIS_PERSECOND',
      { ...tls, enabled: reader.bool('TLS', false) },
      warnings,
    );
  }
  return {
    url: mainInstance.url,
    main: mainInstance,
    ...(perSecond ? { perSecond } : {}),
    healthCheckActiveConnection: main.bool('HEALTH_CHECK_ACTIVE_CONNECTION', false),
    warnings,
  };
}

function readInstance(
  reader: PrefixedEnv,
  label: RedisInstanceSettings['label'],
  tls: RedisTlsSettings,
  warnings: string[],
): RedisInstanceSettings {
  const socketType = readSocketType(reader);
  const type = readTopology(reader);
  const urlSetting = reader.raw('URL')?.name ?? reader.primary('URL');
  const url = reader.string('URL', REDIS_DEFAULTS.url);
  const pipelineWindowMs = reader.durationMs('PIPELINE_WINDOW', '0');
  const pipelineLimit = reader.int('PIPELINE_LIMIT', 0);
  if (type === 'cluster' && pipelineWindowMs === 0 && pipelineLimit === 0) {
    throw new SettingsError(
      reader.primary('PIPELINE_WINDOW'),
      'Implicit Pipelining must be enabled to work with Redis Cluster Mode. Set values for REDIS_PIPELINE_WINDOW or REDIS_PIPELINE_LIMIT to enable implicit pipelining',
    );
  }
  const auth = parseAuth(reader.optionalString('AUTH'));
  const sentinelAuth = parseAuth(reader.optionalString('SENTINEL_AUTH'));
  return {
    label,
    socketType,
    type,
    url,
    ...parseUrl(url, urlSetting, type, socketType),
    ...(auth ? { auth } : {}),
    ...(sentinelAuth && type === 'sentinel' ? { sentinelAuth } : {}),
    tls,
    poolSize: reader.int('POOL_SIZE', REDIS_DEFAULTS.poolSize, 1),
    poolOnEmptyBehavior: readOnEmpty(reader, warnings),
    poolOnEmptyWaitMs: reader.durationMs('POOL_ON_EMPTY_WAIT_DURATION', REDIS_DEFAULTS.poolOnEmptyWait),
    timeoutMs: reader.durationMs('TIMEOUT', REDIS_DEFAULTS.timeout),
    pipelineWindowMs,
    pipelineLimit,
  };
}

function readSocketType(reader: PrefixedEnv): 'tcp' | 'unix' {
  const found = reader.raw('SOCKET_TYPE');
  const value = (found?.value ?? REDIS_DEFAULTS.socketType).toLowerCase();
  if (value !== 'tcp' && value !== 'unix') {
    throw new SettingsError(found?.name ?? '', `'${found?.value}' is not a socket type (use tcp or unix)`);
  }
  return value;
}

function readTopology(reader: PrefixedEnv): RedisTopology {
  const found = reader.raw('TYPE');
  const value = (found?.value ?? REDIS_DEFAULTS.type).toLowerCase();
  if (value !== 'single' && value !== 'sentinel' && value !== 'cluster') {
    throw new SettingsError(
      found?.name ?? '',
      `Unrecognized redis type ${found?.value} (use single, sentinel or cluster)`,
    );
  }
  return value;
}

function readOnEmpty(reader: PrefixedEnv, warnings: string[]): PoolOnEmptyBehavior {
  const found = reader.raw('POOL_ON_EMPTY_BEHAVIOR');
  if (!found) return REDIS_DEFAULTS.poolOnEmptyBehavior;
  const value = found.value.toUpperCase();
  if (value === 'CREATE' || value === 'ERROR' || value === 'WAIT') return value;
  // The reference logs an unknown behaviour and carries on with CREATE; so do we.
  warnings.push(`${found.name}: unknown pool on-empty behavior '${found.value}', using CREATE`);
  return 'CREATE';
}

/** `password` or `user:password`, split at the first colon like the reference (strings.Cut). */
export function parseAuth(text: string | undefined): RedisAuth | undefined {
  if (text === undefined) return undefined;
  const colon = text.indexOf(':');
  if (colon < 0) return { password: text };
  return { username: text.slice(0, colon), password: text.slice(colon + 1) };
}

function parseUrl(
  url: string,
  setting: string,
  type: RedisTopology,
  socketType: 'tcp' | 'unix',
): Pick<RedisInstanceSettings, 'nodes' | 'socketPath' | 'sentinelMasterName'> {
  if (type === 'single') {
    if (socketType === 'unix') return { nodes: [], socketPath: url };
    return { nodes: [parseHostPort(stripScheme(url), setting)] };
  }
  if (socketType === 'unix') {
    throw new SettingsError(setting, `a ${type} deployment needs REDIS_SOCKET_TYPE=tcp`);
  }
  const items = splitList(url);
  if (type === 'cluster') {
    if (items.length === 0)
      throw new SettingsError(setting, 'list at least one cluster node (host:port,...)');
    return { nodes: items.map((item) => parseHostPort(stripScheme(item), setting)) };
  }
  if (items.length < 2) {
    throw new SettingsError(
      setting,
      'Expected master name and a list of urls for the sentinels, in the format: <redis master name>,<sentinel1>,...,<sentineln>',
    );
  }
  const [masterName, ...sentinels] = items as [string, ...string[]];
  return {
    sentinelMasterName: masterName,
    nodes: sentinels.map((item) => parseHostPort(stripScheme(item), setting)),
  };
}

/** radix accepts `redis://host:port` as well as `host:port`; credentials belong in REDIS_AUTH. */
function stripScheme(address: string): string {
  return address.replace(/^rediss?:\/\//i, '').replace(/\/.*$/, '');
}
