import type { ApplyConfig } from '../config/source.js';

export interface ConfigProvider {
  /**
   * Resolves once the first config has been applied or refused, or as soon as the source is set up
   * when it must not wait for one (FORCE_START_WITHOUT_INITIAL_CONFIG); rejects when it cannot start.
   */
  start(apply: ApplyConfig): Promise<void>;
  stop(): Promise<void>;
}
