import type { Logger } from '../log.js';
import type { Settings } from '../settings.js';
import { FileConfigProvider } from './file.js';
import type { ConfigProvider } from './provider.js';
import { XdsSotwProvider } from './xds/sotw-provider.js';

/** The config source CONFIG_TYPE selects. */
export function createConfigProvider(config: Settings['config'], log: Logger): ConfigProvider {
  return config.type === 'GRPC_XDS_SOTW'
    ? new XdsSotwProvider(config.xds, {
        logger: log,
        waitForFirstConfig: !config.forceStartWithoutInitialConfig,
      })
    : new FileConfigProvider(config.file, log);
}
