import { SettingsError } from '../../errors.js';
import { PrefixedEnv, parseHostPort, splitList } from '../redis/env-values.js';
import { readTlsFileSettings, type TlsFileSettings } from '../redis/tls-files.js';

/** MEMCACHE_TLS_*: file paths, read when the store starts. */
export type MemcacheTlsSettings = TlsFileSettings;

/** Every MEMCACHE_* setting (OBJCACHE_* aliases accepted), parsed and validated. */
export interface MemcacheSettings {
  /** MEMCACHE_HOST_PORT as `host:port` strings, in the given order (the order decides key placement). */
  readonly hostPorts: readonly string[];
  /** MEMCACHE_SRV: an SRV name whose records list the servers; exclusive with hostPorts. */
  readonly srv?: string;
  /** MEMCACHE_SRV_REFRESH in milliseconds; 0 resolves once. */
  readonly srvRefreshMs: number;
  /** MEMCACHE_MAX_IDLE_CONNS: idle connections kept per server. */
  readonly maxIdleConns: number;
  readonly tls: MemcacheTlsSettings;
}

export const MEMCACHE_DEFAULTS = { maxIdleConns: 2, srvRefresh: '0' } as const;

/** Reads MEMCACHE_* settings; throws SettingsError naming the setting. */
export function readMemcacheSettings(env: NodeJS.ProcessEnv): MemcacheSettings {
  const reader = new PrefixedEnv(env, 'MEMCACHE_', 'OBJCACHE_');
  const hostPortSetting = reader.raw('HOST_PORT');
  const srv = reader.optionalString('SRV');
  if (hostPortSetting && srv !== undefined) {
    throw new SettingsError(
      reader.raw('SRV')?.name ?? 'MEMCACHE_SRV',
      `Both MEMCACHE_HOST_PORT and MEMCACHE_SRV are set: give the server list one way only`,
    );
  }
  const hostPorts = hostPortSetting ? splitList(hostPortSetting.value) : [];
  if (hostPortSetting) {
    for (const address of hostPorts) parseHostPort(address, hostPortSetting.name);
  }
  return {
    hostPorts,
    ...(srv !== undefined ? { srv } : {}),
    srvRefreshMs: reader.durationMs('SRV_REFRESH', MEMCACHE_DEFAULTS.srvRefresh),
    maxIdleConns: reader.int('MAX_IDLE_CONNS', MEMCACHE_DEFAULTS.maxIdleConns),
    tls: readTlsFileSettings(reader),
  };
}
