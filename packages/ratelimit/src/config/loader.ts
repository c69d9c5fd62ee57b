import type { StoreCapabilities } from '../backends/store.js';
import type { ApplyConfig, ConfigSource } from '../config/source.js';
import type { Logger } from '../log.js';
import { STAT } from '../stats/names.js';
import type { StatStore } from '../stats/store.js';
import { buildConfig } from './build.js';
import type { RateLimitConfig } from './tree.js';
import { readConfigDocument } from './yaml-reader.js';

/**
 * Parses and validates a full set of sources into a config, or throws its ConfigError. With
 * `store`, a limit whose algorithm the store cannot count is an error too.
 */
export function loadConfig(
  sources: readonly ConfigSource[],
  mergeDomains: boolean,
  store?: StoreCapabilities,
): RateLimitConfig {
  return buildConfig(sources.map(readConfigDocument), mergeDomains, store);
}

/**
 * Holds the config in force. `apply` swaps in a new one atomically, or keeps the old one and
 * counts config_load_error when the new set is invalid (the reference's SetConfig).
 */
export class ConfigHolder {
  private config: RateLimitConfig | undefined;
  private readonly listeners: Array<(config: RateLimitConfig) => void> = [];

  constructor(
    private readonly stats: StatStore,
    private readonly log: Logger,
    private readonly mergeDomains: boolean,
    private readonly store?: StoreCapabilities,
  ) {}

  get current(): RateLimitConfig | undefined {
    return this.config;
  }

  /** Called after every successful load, e.g. by the config health component. */
  onLoad(listener: (config: RateLimitConfig) => void): void {
    this.listeners.push(listener);
  }

  readonly apply: ApplyConfig = (sources) => {
    let config: RateLimitConfig;
    try {
      config = loadConfig(sources, this.mergeDomains, this.store);
    } catch (error) {
      this.stats.inc(STAT.configLoadError);
      this.log.error(`Error loading new configuration: ${(error as Error).message}`);
      throw error;
    }
    this.config = config;
    this.stats.inc(STAT.configLoadSuccess);
    this.log.info('Successfully loaded new configuration');
    for (const listener of this.listeners) listener(config);
  };
}
